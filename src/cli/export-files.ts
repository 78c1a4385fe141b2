import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ExportedFile } from "../export/index.ts";
import { ExitError } from "./errors.ts";

/* The files of `egp export`, as the composer made them (src/compose/export.ts), written to --out. */
export async function writeFiles(out: string, files: readonly ExportedFile[]): Promise<void> {
  const fail = (error: NodeJS.ErrnoException, path: string) => {
    throw new ExitError("EGP_FILE_SYSTEM", `--out: cannot write ${path} (${error.code ?? error.message})`, {
      cause: error,
    });
  };
  await mkdir(out, { recursive: true }).catch((error) => fail(error, out));
  for (const file of files) {
    const path = join(out, file.file);
    await writeFile(path, file.text).catch((error) => fail(error, path));
  }
}

import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import type { ExportedFile } from "../export/index.ts";
import { ExitError } from "./errors.ts";

/* The files of `egp export`: read back to merge into, refused when they hold a local edit, written. */
/** What the files held that the export would replace: refused unless --force, so no edit is lost. */
export function refuseOverwrites(files: readonly ExportedFile[], shown: string): void {
  const lost = files.flatMap((f) => (f.overwrites ?? []).map((what) => `${join(shown, f.file)}: ${what}`));
  if (lost.length === 0) return;
  throw new ExitError(
    "EGP_EXPORT_OVERWRITE",
    `export: the files hold what the instance does not, which this export would overwrite (${lost.join("; ")}); plan to see the difference, or pass --force to overwrite`,
  );
}

/** The files as they will be written: each merged with the file an earlier export left there. */
export async function mergedFiles(
  out: string,
  files: readonly ExportedFile[],
  merge: (file: ExportedFile, existing: { path: string; text: string }) => ExportedFile,
): Promise<ExportedFile[]> {
  const shown = relative(process.cwd(), out) || ".";
  return Promise.all(
    files.map(async (file) => {
      const path = join(out, file.file);
      const text = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
        // Nothing there yet (or no folder: writing it says why).
        if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
        throw new ExitError(
          "EGP_FILE_SYSTEM",
          `--out: cannot read ${path} (${error.code ?? error.message})`,
          {
            cause: error,
          },
        );
      });
      return text === undefined ? file : merge(file, { path: join(shown, file.file), text });
    }),
  );
}

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

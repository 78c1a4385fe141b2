import { constants } from "node:fs";
import { open, readdir } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { statOf } from "../io/private-dir.ts";
import { ENVIRONMENT_NAME } from "./environment-name.ts";
import { ManifestError } from "./errors.ts";
import { Instant } from "./freeze.ts";
import { checkKnownEnvironment, parseOneDocument } from "./one-document.ts";

/*
 * A way through a freeze: `freeze-exceptions/<name>.yaml`, committed so that it was reviewed. It
 * names one environment, the actors who may use it and when it ends; the gate refuses one that
 * ends more than a day after it is used.
 */

export const FREEZE_EXCEPTIONS_DIR = "freeze-exceptions";

/** An exception is a few lines; anything larger is not one that was reviewed line by line. */
export const MAX_EXCEPTION_BYTES = 64 * 1024;

/** A file of the exceptions (or of drift acknowledgements) that is not what a reviewer saw in git: refused as a whole, naming it. */
function notPlain(file: string, why: string, what = "a freeze exception"): ManifestError {
  return new ManifestError([
    {
      file,
      line: 0,
      column: 0,
      severity: "error",
      path: "",
      message: `${why}; ${what} must be a plain file of the repository, so that egp reads what was reviewed`,
    },
  ]);
}

export { notPlain };

/**
 * The text of an exception (or an acknowledgement, `what`), read only when it is a plain file of at most MAX_EXCEPTION_BYTES: never
 * through a symbolic link (to a file outside the repository, say), checked on the entry itself
 * (as `.egp/`'s files are) and again by opening without following one.
 */
export async function readPlain(dir: string, file: string, what?: string): Promise<string> {
  const path = join(dir, file);
  if (statOf(path)?.isSymbolicLink()) throw notPlain(file, "is a symbolic link", what);
  const handle = await open(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0)).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === "ELOOP") throw notPlain(file, "is a symbolic link", what);
      throw error;
    },
  );
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw notPlain(file, "is not a file", what);
    if (stat.size > MAX_EXCEPTION_BYTES)
      throw notPlain(file, `is ${stat.size} bytes, more than ${MAX_EXCEPTION_BYTES / 1024} KiB`, what);
    const bytes = Buffer.alloc(MAX_EXCEPTION_BYTES + 1);
    const { bytesRead } = await handle.read(bytes, 0, bytes.length, 0);
    // A file that grew since its size was read is refused too, not cut to the bound.
    if (bytesRead > MAX_EXCEPTION_BYTES)
      throw notPlain(file, `is more than ${MAX_EXCEPTION_BYTES / 1024} KiB`, what);
    return bytes.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}

export const FreezeExceptionDocument = z
  .strictObject({
    environment: z.string().regex(ENVIRONMENT_NAME, "expected an environment name (a file in environments/)"),
    until: Instant.describe("When the exception ends; refused at use when more than 24 hours ahead."),
    reason: z.string().min(1),
    allowedBy: z
      .array(z.string().min(1))
      .min(1)
      .describe(
        "The actors who may use it: in GitHub Actions who started the run (GITHUB_TRIGGERING_ACTOR), elsewhere EGP_ACTOR or the OS user.",
      ),
  })
  .describe("A reviewed exception to an environment's freeze windows.");

/** A reviewed way through a freeze, as read from its file: the one type the gate and the audit use. */
export interface FreezeException {
  name: string;
  /** Repository-relative path. */
  file: string;
  environment: string;
  /** An instant with its offset. */
  until: string;
  reason: string;
  allowedBy: readonly string[];
}

/**
 * An exception read from its text. With `knownEnvironments` (validate), one naming another
 * environment is refused: the gate would pass it over, and its actors would stay frozen.
 */
export function parseFreezeException(
  file: string,
  name: string,
  text: string,
  knownEnvironments?: ReadonlySet<string>,
): FreezeException {
  const data = parseOneDocument(file, text, FreezeExceptionDocument, ({ environment }, report) =>
    checkKnownEnvironment(environment, knownEnvironments, report),
  );
  return { name, file, ...data };
}

/**
 * Every exception of the repository; none when the folder is absent. A malformed one is an error,
 * and so are a symbolic link, a file over MAX_EXCEPTION_BYTES and, given `knownEnvironments`, one
 * naming an environment not among them.
 */
export async function readFreezeExceptions(
  dir: string,
  knownEnvironments?: ReadonlySet<string>,
): Promise<FreezeException[]> {
  if (statOf(join(dir, FREEZE_EXCEPTIONS_DIR))?.isSymbolicLink())
    throw notPlain(FREEZE_EXCEPTIONS_DIR, "is a symbolic link");
  const names = await readdir(join(dir, FREEZE_EXCEPTIONS_DIR)).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [];
    throw error;
  });
  const files = names.filter((name) => /\.ya?ml$/.test(name)).sort();
  const exceptions: FreezeException[] = [];
  for (const entry of files) {
    const file = `${FREEZE_EXCEPTIONS_DIR}/${entry}`;
    const text = await readPlain(dir, file);
    exceptions.push(parseFreezeException(file, entry.replace(/\.ya?ml$/, ""), text, knownEnvironments));
  }
  return exceptions;
}

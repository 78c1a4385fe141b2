import { LoginRefusedError, PlatformError, TransferError } from "../client/errors.ts";
import { EgpError, ERROR_CODES } from "../errors/index.ts";
import { formatManifestError, ManifestError } from "../manifest/index.ts";
import { formatPlanProblem, PlanError, printable } from "../plan/index.ts";

/** What the file system said, in words, for the failures a user can act on (a full disk, a missing file). */
const FILE_SYSTEM: Record<string, string> = {
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  EROFS: "read-only file system",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOENT: "no such file or directory",
  EISDIR: "is a directory",
  ENOTDIR: "a part of the path is not a directory",
  EMFILE: "too many open files",
};

/** The disk, not egp: full, read-only, not ours, or a file that is not there. */
function fileSystemWords(error: unknown): string | undefined {
  const { code, syscall, path } = (error ?? {}) as NodeJS.ErrnoException;
  if (!(error instanceof Error) || typeof code !== "string" || !FILE_SYSTEM[code]) return undefined;
  return `cannot ${syscall ?? "use the file"}${path ? ` ${path}` : ""}: ${FILE_SYSTEM[code]} (${code})`;
}

/** One of the family, for a raw Node error of the file system that reached the top (`cat` of a missing plan file). */
function asEgpError(error: unknown): EgpError | undefined {
  if (error instanceof EgpError) return error;
  const words = fileSystemWords(error);
  return words === undefined ? undefined : new EgpError("EGP_FILE_SYSTEM", words, { cause: error });
}

/** The client's line: the status, then the call where its message does not name it, then what the platform said. */
function platformLine(error: PlatformError): string {
  const where = [error.method, error.path].filter(Boolean).join(" ");
  const text = where && !error.message.includes(where) ? `${where}: ${error.message}` : error.message;
  const messages = error.validationMessages
    .map((m) => [m.MessageKey, m.Description].filter(Boolean).join(": "))
    .filter((m) => m && !text.includes(m.split(": ").at(-1) ?? m));
  const detail = messages.length ? ` (${messages.join("; ")})` : "";
  return `${error.status === undefined ? "" : `${error.status} `}${text}${detail}`;
}

/** What an error says, before its code: one line, or one per issue for manifests and plans. */
function messagesOf(error: EgpError): string[] {
  if (error instanceof ManifestError) return error.issues.map(formatManifestError);
  // One line per problem, as manifest errors are printed: each at the field that asks for it.
  if (error instanceof PlanError && error.problems.length > 0) return error.problems.map(formatPlanProblem);
  // A login refusal's message names the environment, the account and the reason; the request adds nothing.
  if (error instanceof PlatformError && !(error instanceof LoginRefusedError)) return [platformLine(error)];
  // A download or upload whose local side failed (a full disk): the disk's words when it has them.
  if (error instanceof TransferError) return [fileSystemWords(error.cause) ?? error.message];
  // An empty message is the exit status of a report already printed (drift found: 2).
  return error.message ? [error.message] : [];
}

/**
 * How the CLI tells a failure: one of egp's (an EgpError whose code is user-facing, or the file
 * system's words for a raw Node error) is its lines, each `CODE message` and printable (messages
 * carry names and the instance's ValidationMessages, whose control characters, line breaks
 * included, are shown escaped), and its code's exit code. Anything else is undefined: an internal
 * error, which the CLI prints with its stack.
 */
export function describeUserError(error: unknown): { lines: string[]; exitCode: number } | undefined {
  const known = asEgpError(error);
  if (!known || !ERROR_CODES[known.code].userFacing) return undefined;
  return {
    lines: messagesOf(known).map((line) => printable(`${known.code} ${line}`)),
    exitCode: known.exitCode,
  };
}

/** What the CLI writes on stderr for a failure it knows, `egp: ` before each line, and its exit code. */
export function userErrorOutput(error: unknown): { text: string; exitCode: number } | undefined {
  const known = describeUserError(error);
  return known && { text: known.lines.map((line) => `egp: ${line}\n`).join(""), exitCode: known.exitCode };
}

/** A failure on one line, as the CLI would say it on its own (status's row of an unreadable environment). */
export function oneLineOf(error: unknown): string {
  const known = describeUserError(error);
  if (known && known.lines.length > 0) return known.lines.join("; ");
  return printable(error instanceof Error ? error.message : String(error));
}

import {
  ApplyRefusedError,
  ArtifactError,
  JournalUnreadableError,
  LockedError,
  ReleaseError,
  SensitiveChangedError,
} from "../apply/index.ts";
import { PlanMismatchError, StalePlanError } from "../apply/stale.ts";
import { LoginRefusedError, PlatformError, ResponseShapeError, TransferError } from "../client/errors.ts";
import { EmulatorErrorCode } from "../emulator/error-codes.ts";
import { ExportErrorCode } from "../export/error-codes.ts";
import { IoErrorCode } from "../io/error-codes.ts";
import { formatManifestError, ManifestError } from "../manifest/index.ts";
import { formatPlanProblem, PlanError, PlanFileError, printable } from "../plan/index.ts";
import { FrozenError } from "../release/freeze-gate.ts";
import { ReleaseGateError } from "../release/release-gate.ts";
import { StoreError } from "../store/index.ts";
import { ExitError } from "./errors.ts";

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
function fileSystemError(error: unknown): string | undefined {
  const { code, syscall, path } = (error ?? {}) as NodeJS.ErrnoException;
  if (!(error instanceof Error) || typeof code !== "string" || !FILE_SYSTEM[code]) return undefined;
  return `cannot ${syscall ?? "use the file"}${path ? ` ${path}` : ""}: ${FILE_SYSTEM[code]} (${code})`;
}

/**
 * Failures a user can act on, as the one line (or, for manifests, one line per issue) the CLI
 * prints, each printable: messages carry names and the instance's ValidationMessages, whose control
 * characters (line breaks included) are shown escaped. Anything else is an internal error and gets
 * a stack.
 */
export function describeUserError(error: unknown): { lines: string[]; exitCode: number } | undefined {
  const known = describe(error);
  return known && { ...known, lines: known.lines.map(printable) };
}

function describe(error: unknown): { lines: string[]; exitCode: number } | undefined {
  if (error instanceof ExitError)
    return { lines: error.message ? [error.message] : [], exitCode: error.exitCode };
  if (error instanceof ManifestError) return { lines: error.issues.map(formatManifestError), exitCode: 1 };
  // One line per problem, as manifest errors are printed: each at the field that asks for it.
  if (error instanceof PlanError && error.problems.length > 0)
    return { lines: error.problems.map(formatPlanProblem), exitCode: 1 };
  if (
    error instanceof PlanError ||
    error instanceof PlanFileError ||
    error instanceof StalePlanError ||
    error instanceof PlanMismatchError ||
    error instanceof SensitiveChangedError ||
    error instanceof LockedError ||
    error instanceof ApplyRefusedError ||
    error instanceof JournalUnreadableError ||
    error instanceof ArtifactError ||
    error instanceof ReleaseError ||
    error instanceof ReleaseGateError ||
    error instanceof FrozenError ||
    error instanceof StoreError
  ) {
    return { lines: [error.message], exitCode: 1 };
  }
  // Its message names the environment, the account and the reason; the request adds nothing.
  if (error instanceof LoginRefusedError) return { lines: [`${error.code} ${error.message}`], exitCode: 1 };
  if (error instanceof PlatformError) {
    // The client's messages already name the call; add only what they don't say.
    const where = [error.method, error.path].filter(Boolean).join(" ");
    const head = `${error.code}${error.status === undefined ? "" : ` ${error.status}`}`;
    const text = where && !error.message.includes(where) ? `${where}: ${error.message}` : error.message;
    const messages = error.validationMessages
      .map((m) => [m.MessageKey, m.Description].filter(Boolean).join(": "))
      .filter((m) => m && !text.includes(m.split(": ").at(-1) ?? m));
    const detail = messages.length ? ` (${messages.join("; ")})` : "";
    return { lines: [`${head} ${text}${detail}`], exitCode: 1 };
  }
  const fileSystem = fileSystemError(error);
  if (fileSystem) return { lines: [fileSystem], exitCode: 1 };
  // A download or upload whose local side failed (a full disk): the disk's words when it has them.
  if (error instanceof TransferError) {
    const disk = fileSystemError(error.cause);
    return { lines: [disk ? `${error.code} ${disk}` : `${error.code} ${error.message}`], exitCode: 1 };
  }
  if (error instanceof ResponseShapeError) return { lines: [`${error.code}: ${error.message}`], exitCode: 1 };
  // Another process kept an embedded environment's data file, or it is not one; a lock file
  // naming no holder.
  const code = (error as { code?: unknown } | undefined)?.code;
  if (
    code === EmulatorErrorCode.DataBusy ||
    code === EmulatorErrorCode.DataUnreadable ||
    code === IoErrorCode.LockUnreadable ||
    code === IoErrorCode.StateUnsafe ||
    code === IoErrorCode.LocalKeyUnusable ||
    code === ExportErrorCode.Merge
  ) {
    return { lines: [(error as Error).message], exitCode: 1 };
  }
  return undefined;
}

/** A failure on one line, as the CLI would say it on its own (status's row of an unreadable environment). */
export function oneLineOf(error: unknown): string {
  const known = describeUserError(error);
  if (known && known.lines.length > 0) return known.lines.join("; ");
  return printable(error instanceof Error ? error.message : String(error));
}

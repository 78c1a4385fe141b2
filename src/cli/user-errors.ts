import { ArtifactError, LockedError } from "../apply/index.ts";
import { PlatformError, ResponseShapeError } from "../client/errors.ts";
import { formatManifestError, ManifestError } from "../manifest/index.ts";
import { PlanError, PlanFileError } from "../plan/index.ts";
import { ExitError } from "./errors.ts";
import { StalePlanError } from "./stale.ts";

/**
 * Failures a user can act on, as the one line (or, for manifests, one line per issue) the CLI
 * prints. Anything else is an internal error and gets a stack.
 */
export function describeUserError(error: unknown): { lines: string[]; exitCode: number } | undefined {
  if (error instanceof ExitError)
    return { lines: error.message ? [error.message] : [], exitCode: error.exitCode };
  if (error instanceof ManifestError) return { lines: error.issues.map(formatManifestError), exitCode: 1 };
  if (
    error instanceof PlanError ||
    error instanceof PlanFileError ||
    error instanceof StalePlanError ||
    error instanceof LockedError ||
    error instanceof ArtifactError
  ) {
    return { lines: [error.message], exitCode: 1 };
  }
  if (error instanceof PlatformError) {
    const where = [error.method, error.path].filter(Boolean).join(" ");
    const status = error.status === undefined ? "" : ` ${error.status}`;
    const messages = error.validationMessages
      .map((m) => [m.MessageKey, m.Description].filter(Boolean).join(": "))
      .filter(Boolean);
    const detail = messages.length ? ` (${messages.join("; ")})` : "";
    return {
      lines: [`${error.code}${status}${where ? ` ${where}` : ""}: ${error.message}${detail}`],
      exitCode: 1,
    };
  }
  if (error instanceof ResponseShapeError) return { lines: [`${error.code}: ${error.message}`], exitCode: 1 };
  return undefined;
}

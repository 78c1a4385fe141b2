import type { RunFailure } from "../apply/index.ts";
import { EgpError } from "../errors/index.ts";

/**
 * A failure the CLI itself finds (a flag it can't use, a file it can't write, a run that ended
 * failed): one of the family, so it prints as `egp: CODE message` and exits with its code's exit
 * code. An empty message prints nothing: the exit status of a report already printed (drift: 2).
 */
export class ExitError extends EgpError {
  constructor(...args: ConstructorParameters<typeof EgpError>) {
    super(...args);
    this.name = "ExitError";
  }
}

/** The exit of a run that did not end well: its code says how (EGP_INTERRUPTED exits 130). */
export function exitOf(failure: RunFailure, cause?: unknown): ExitError {
  return new ExitError(failure.code, failure.message, { cause });
}

/** An `--env` that names no file of environments/, said the same way by every command that takes one. */
export function unknownEnvironment(env: string, known: readonly string[]): ExitError {
  return new ExitError(
    "EGP_USAGE",
    `--env: no environments/${env}.yaml (known: ${known.join(", ") || "none"})`,
  );
}

import type { RunFailure } from "../apply/index.ts";
import { INTERRUPTED_EXIT_CODE } from "./interrupts.ts";

/** A known failure: the CLI prints its message on one line and exits with its code, no stack. */
export class ExitError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ExitError";
    this.exitCode = exitCode;
  }
}

/** The exit of a run that did not end well: 130 when a signal stopped it, else 1. */
export function exitOf(failure: RunFailure, cause?: unknown): ExitError {
  return new ExitError(failure.message, failure.interrupted ? INTERRUPTED_EXIT_CODE : 1, { cause });
}

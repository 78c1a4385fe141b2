/** A known failure: the CLI prints its message on one line and exits with its code, no stack. */
export class ExitError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ExitError";
    this.exitCode = exitCode;
  }
}

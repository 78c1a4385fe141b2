import { ERROR_CODES, type ErrorCode } from "./codes.ts";

/*
 * The one base of every failure egp knows (fastify's FastifyError, changesets' ExitError): a stable
 * `code` from the table, the `exitCode` the table gives it, and the `cause` it wraps. The CLI prints
 * an EgpError as `egp: CODE message` and treats anything else as a bug (src/cli/user-errors.ts).
 */
export class EgpError extends Error {
  readonly code: ErrorCode;
  readonly exitCode: number;
  constructor(code: ErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.exitCode = ERROR_CODES[code].exitCode;
  }
}

/** `CODE message` for one of egp's failures, the message alone for anything else: how a record or a notice names a failure. */
export function codedMessage(error: unknown): string {
  if (error instanceof EgpError) return `${error.code} ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

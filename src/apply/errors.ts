import { PlatformError } from "../client/errors.ts";
import { EgpError, type ErrorCode, isErrorCode } from "../errors/index.ts";
import type { ChangeKind, Step, StepOp } from "../plan/index.ts";

/*
 * Apply's errors are of the family (EgpError): each carries a stable code from the one table
 * (src/errors/codes.ts, docs/errors.md). A failed step is a StepError: the op's error, whatever it
 * was, with the step it failed in. The journal and `apply --json` record its plain-data form
 * (`StepFailure`), never a bare message, so that scripts branch on codes.
 */

/** A failure an op raises itself (not the client's): a job that failed, an object that is gone. */
export class ApplyError extends EgpError {
  /** The platform's message keys, where the failure came with validation messages (an install job). */
  readonly messageKeys: readonly string[];
  /** The installs a verification saw before it gave up (EGP_INSTALL_DIVERGED). */
  readonly passes: number | undefined;
  constructor(
    code: ErrorCode,
    message: string,
    options: { cause?: unknown; messageKeys?: string[]; passes?: number } = {},
  ) {
    super(code, message, { cause: options.cause });
    this.name = "ApplyError";
    this.messageKeys = options.messageKeys ?? [];
    this.passes = options.passes;
  }
}

/**
 * What caused a step's failure, as plain data. Only fields that hold no secret: the client's
 * messages and paths are scrubbed when its errors are made, and request bodies, headers and
 * `ErroredValue`s are left out.
 */
export interface ErrorCause {
  /** The error's code, when it has one (`EGP_…` from the table, or a Node code like `ENOSPC`). */
  code?: string;
  /** Its class: `ValidationError`, `ConnectionError`… */
  name: string;
  message: string;
  status?: number;
  method?: string;
  path?: string;
  /** The MessageKey of each validation message the platform sent. */
  messageKeys?: string[];
  /** Whether a failed request may have reached the server (connection failures). */
  sent?: boolean;
  retryAfterMs?: number;
}

/** A failed step as the journal and `apply --json` record it. */
export interface StepFailure {
  code: string;
  message: string;
  kind?: ChangeKind;
  key?: string;
  op: StepOp;
  step: string;
  cause: ErrorCause;
  /** The installs a verification saw before it gave up (EGP_INSTALL_DIVERGED). */
  passes?: number;
}

export function causeOf(error: unknown): ErrorCause {
  if (!(error instanceof Error)) return { name: typeof error, message: String(error) };
  const cause: ErrorCause = { name: error.name, message: error.message };
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") cause.code = code;
  if (error instanceof PlatformError) {
    if (error.status !== undefined) cause.status = error.status;
    if (error.method !== undefined) cause.method = error.method;
    if (error.path !== undefined) cause.path = error.path;
    const keys = error.validationMessages.map((m) => m.MessageKey).filter((k): k is string => Boolean(k));
    if (keys.length > 0) cause.messageKeys = keys;
    const { sent, retryAfterMs } = error as { sent?: unknown; retryAfterMs?: unknown };
    if (typeof sent === "boolean") cause.sent = sent;
    if (typeof retryAfterMs === "number") cause.retryAfterMs = retryAfterMs;
  } else if (error instanceof ApplyError && error.messageKeys.length > 0) {
    cause.messageKeys = [...error.messageKeys];
  }
  return cause;
}

/**
 * A step that failed. Its code is the cause's when that is one of ours (`EGP_VALIDATION`,
 * `EGP_INSTALL_FAILED`…), and `EGP_STEP_FAILED` for anything else (a local I/O error, a bug), so
 * that every failure has a code to branch on. The message is the cause's: the step id is printed
 * next to it already.
 */
export class StepError extends EgpError {
  readonly kind: ChangeKind | undefined;
  readonly key: string | undefined;
  readonly op: StepOp;
  readonly step: string;
  constructor(step: Step, change: { kind: ChangeKind; key: string } | undefined, cause: unknown) {
    const code = (cause as { code?: unknown } | null)?.code;
    super(
      isErrorCode(code) ? code : "EGP_STEP_FAILED",
      cause instanceof Error ? cause.message : String(cause),
      {
        cause,
      },
    );
    this.name = "StepError";
    this.kind = change?.kind;
    this.key = change?.key;
    this.op = step.op;
    this.step = step.id;
  }

  toJSON(): StepFailure {
    return {
      code: this.code,
      message: this.message,
      ...(this.kind ? { kind: this.kind } : {}),
      ...(this.key !== undefined ? { key: this.key } : {}),
      op: this.op,
      step: this.step,
      cause: causeOf(this.cause),
      ...(this.cause instanceof ApplyError && this.cause.passes !== undefined
        ? { passes: this.cause.passes }
        : {}),
    };
  }
}

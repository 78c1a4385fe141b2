import pino, { type Logger } from "pino";
import { REDACTED, type Scrubber } from "./redact.ts";

/*
 * Two layers keep secrets out of logs:
 * 1. pino's redaction removes the fields that hold secrets (the Authorization header, `Password`,
 *    `NewPassword`, `SessionToken`, the logout `Value`, `AttachmentBytes`), wherever the client
 *    logs a header set or a body;
 * 2. the scrubber removes the current token and the configured password from every string that is
 *    logged, error messages included, whatever field they hide in.
 */

const SECRET_KEYS = ["Password", "NewPassword", "SessionToken", "AttachmentBytes"];

export const REDACT_PATHS: readonly string[] = [
  "headers.authorization",
  "headers.Authorization",
  "req.headers.authorization",
  // The logout body is logged under `body`: its `Value` is the token being ended.
  "body.Value",
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((key) => `*.${key}`),
  ...SECRET_KEYS.map((key) => `*.*.${key}`),
];

export type LogFn = (fields: Record<string, unknown>, message: string) => void;

export interface ClientLog {
  trace: LogFn;
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  readonly pino: Logger;
}

/** The quiet default: warnings and errors to stderr. */
function defaultLogger(): Logger {
  return pino({ name: "egp-client", level: "warn" }, pino.destination({ dest: 2, sync: true }));
}

export function createClientLog(logger: Logger | undefined, scrubber: Scrubber): ClientLog {
  const base = (logger ?? defaultLogger()).child(
    { component: "egp-client" },
    { redact: { paths: [...REDACT_PATHS], censor: REDACTED } },
  );
  const at =
    (level: "trace" | "debug" | "info" | "warn" | "error"): LogFn =>
    (fields, message) => {
      if (!base.isLevelEnabled(level)) return;
      base[level](scrubber.scrubDeep(withErrors(fields)), scrubber.scrub(message));
    };
  return {
    trace: at("trace"),
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    pino: base,
  };
}

/** Errors become plain objects so that their message and stack are scrubbed like any string. */
function withErrors(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] = value instanceof Error ? errorFields(value) : value;
  }
  return out;
}

function errorFields(error: Error): Record<string, unknown> {
  return {
    type: error.name,
    code: (error as { code?: unknown }).code,
    message: error.message,
    stack: error.stack,
    cause: error.cause instanceof Error ? errorFields(error.cause) : undefined,
  };
}

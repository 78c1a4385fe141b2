import type { z } from "zod";
import { EgpError, type ErrorCode } from "../errors/index.ts";
import type { ValidationMessage } from "../wire/index.ts";
import { type Scrub, scrubPatterns } from "./redact.ts";

/*
 * HTTP failures: one base class with a stable code, the status, the request's method and path, the
 * validation messages and a cause; one subclass per category; one factory (`errorFromResponse`)
 * that maps a response to its class. Other failures (a response of the wrong shape, bad options, a
 * bad argument, a local file) are separate families. Every constructor scrubs what it stores.
 */

export type Headers = Record<string, string | string[] | undefined>;

export interface PlatformErrorInit {
  code: ErrorCode;
  message: string;
  status?: number;
  method?: string;
  /** The request path; query values are scrubbed before they get here. */
  path?: string;
  validationMessages?: ValidationMessage[] | null;
  headers?: Headers;
  cause?: unknown;
  scrub?: Scrub;
}

export class PlatformError extends EgpError {
  readonly status: number | undefined;
  readonly method: string | undefined;
  readonly path: string | undefined;
  readonly validationMessages: ValidationMessage[];
  readonly headers: Headers;

  constructor(init: PlatformErrorInit) {
    const scrub = init.scrub ?? scrubPatterns;
    super(init.code, scrub(init.message), { cause: init.cause });
    this.status = init.status;
    this.method = init.method;
    this.path = init.path === undefined ? undefined : scrub(init.path);
    this.validationMessages = (init.validationMessages ?? []).map((m) => scrubMessage(m, scrub));
    this.headers = withoutSecrets(init.headers ?? {});
  }
}

export class AuthError extends PlatformError {}
/**
 * The login was refused for its credentials (or a locked or inactive account). Never retried: the
 * session remembers it, and every later call of the client fails at once with this same error.
 */
export class LoginRefusedError extends AuthError {}
export class ForbiddenError extends PlatformError {}
export class NotFoundError extends PlatformError {}
export class ValidationError extends PlatformError {}
export class TransientError extends PlatformError {}

export class RateLimitError extends PlatformError {
  /** What `Retry-After` asked for, in ms, when the response said. */
  readonly retryAfterMs: number | undefined;
  constructor(init: PlatformErrorInit & { retryAfterMs?: number }) {
    super(init);
    this.retryAfterMs = init.retryAfterMs;
  }
}

export class ConnectionError extends PlatformError {
  /** False when the request never reached the server (refused, DNS, TLS, connect timeout). */
  readonly sent: boolean;
  constructor(init: PlatformErrorInit & { sent: boolean }) {
    super(init);
    this.sent = init.sent;
  }
}

/** A JSON answer larger than `limits.maxResponseBytes`: reading stopped there. Not retried. */
export class ResponseTooLargeError extends PlatformError {}

/** A package download past its bound (`limits.packageBytes`): stopped, the partial file removed. Not retried. */
export class PackageTooLargeError extends PlatformError {}

/** The server asked (Retry-After) for a longer wait than `retry.maxRetryAfterMs`: not waited for. */
export class RetryAfterTooLongError extends PlatformError {
  readonly retryAfterMs: number;
  constructor(init: PlatformErrorInit & { retryAfterMs: number }) {
    super(init);
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** A create failed without a clear answer: it may or may not have happened. Re-read before retrying. */
export class OutcomeUnknownError extends PlatformError {}

/** A response whose body does not match the schema of the call. */
export class ResponseShapeError extends EgpError {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly issues: z.core.$ZodIssue[];
  constructor(init: {
    method: string;
    path: string;
    status: number;
    issues: z.core.$ZodIssue[];
    scrub?: Scrub;
    cause?: unknown;
  }) {
    const scrub = init.scrub ?? scrubPatterns;
    const summary = init.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join(".") || "(body)"}: ${issue.message}`)
      .join("; ");
    // The path is egp's own (patterns only, redact.ts); the issues may quote the answer.
    const path = scrubPatterns(init.path);
    super("EGP_RESPONSE_SHAPE", `${init.method} ${path}: unexpected response shape: ${scrub(summary)}`, {
      cause: init.cause,
    });
    this.method = init.method;
    this.path = path;
    this.status = init.status;
    this.issues = init.issues;
  }
}

/** Options given to `createClient` that the schema refuses. */
export class ClientOptionsError extends EgpError {
  readonly problems: string[];
  constructor(problems: string[], cause?: unknown) {
    super("EGP_CLIENT_OPTIONS", `Invalid client options: ${problems.join("; ")}`, { cause });
    this.problems = problems;
  }
}

/** A method was called with an argument it cannot send (not an integer id, a bad OData field…). */
export class InvalidArgumentError extends EgpError {
  constructor(message: string) {
    super("EGP_INVALID_ARGUMENT", message);
  }
}

/** A local file or stream failed during an upload or a download. */
export class TransferError extends EgpError {
  constructor(message: string, cause?: unknown) {
    super("EGP_TRANSFER", message, { cause });
  }
}

// ---- the factory

export interface ResponseFailure {
  status: number;
  method: string;
  path: string;
  messages?: ValidationMessage[] | null;
  headers?: Headers;
  /** A login answered: a non-success there means rejected credentials. */
  login?: boolean;
  scrub?: Scrub;
  now?: number;
}

const TRANSIENT = new Set([500, 502, 503, 504]);

/** Maps a failed response (an error status, or `IsSuccessful: false`) to its error class. */
export function errorFromResponse(failure: ResponseFailure): PlatformError {
  const { status } = failure;
  // The platform's words may quote what was sent (a password): scrubbed by value. The method and
  // path are egp's own (scrubbed by pattern only, redact.ts).
  const messages = (failure.messages ?? []).map((m) => scrubMessage(m, failure.scrub ?? scrubPatterns));
  const init = (code: ErrorCode, what: string): PlatformErrorInit => ({
    code,
    message: describe({ ...failure, messages }, what),
    status,
    method: failure.method,
    path: failure.path,
    validationMessages: messages,
    headers: failure.headers,
    scrub: scrubPatterns,
  });
  // A 401 to the login itself is a refusal too (some releases answer so); never a stale session.
  if (failure.login && (status < 400 || status === 401))
    return new LoginRefusedError(init("EGP_LOGIN_FAILED", "login rejected"));
  if (status >= 200 && status < 300) return new ValidationError(init("EGP_REQUEST_FAILED", "not successful"));
  if (status === 401) return new AuthError(init("EGP_UNAUTHORIZED", "not authorized"));
  if (status === 403) return new ForbiddenError(init("EGP_FORBIDDEN", "forbidden"));
  if (status === 404) return new NotFoundError(init("EGP_NOT_FOUND", "not found"));
  if (status === 429) {
    const retryAfterMs = retryAfterOf(failure.headers, failure.now ?? Date.now());
    return new RateLimitError({ ...init("EGP_RATE_LIMITED", "rate limited"), retryAfterMs });
  }
  if (status >= 400 && status < 500) return new ValidationError(init("EGP_VALIDATION", "rejected"));
  if (TRANSIENT.has(status)) return new TransientError(init("EGP_UNAVAILABLE", "unavailable"));
  return new PlatformError(init("EGP_HTTP_ERROR", "unexpected status"));
}

function describe(failure: ResponseFailure, what: string): string {
  const details = (failure.messages ?? [])
    .map((m) => m.Description ?? m.ResourcedMessage ?? m.MessageKey ?? "")
    .filter(Boolean)
    .join("; ");
  const head = `${failure.method} ${failure.path}: HTTP ${failure.status} ${what}`;
  return details ? `${head}: ${details}` : head;
}

function scrubMessage(message: ValidationMessage, scrub: Scrub): ValidationMessage {
  const out: ValidationMessage = { ...message };
  for (const key of Object.keys(out) as Array<keyof ValidationMessage>) {
    const value = out[key];
    if (typeof value === "string") (out as Record<string, unknown>)[key] = scrub(value);
  }
  return out;
}

function withoutSecrets(headers: Headers): Headers {
  const out: Headers = {};
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === "authorization" || key.toLowerCase() === "set-cookie") continue;
    out[key] = value;
  }
  return out;
}

/** `Retry-After` as ms: delta-seconds or an HTTP-date; undefined when absent or unreadable. */
export function retryAfterOf(headers: Headers | undefined, now: number): number | undefined {
  const raw = headers?.["retry-after"];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** What an error that wraps another keeps of it: the request, the answer, and the cause itself. */
function carriedFrom(cause: PlatformError) {
  return {
    status: cause.status,
    method: cause.method,
    path: cause.path,
    validationMessages: cause.validationMessages,
    headers: cause.headers,
    cause,
  };
}

/** Fails a retry at once instead of waiting longer than the policy allows. */
export function retryAfterTooLong(
  cause: PlatformError,
  askedMs: number,
  maxMs: number,
): RetryAfterTooLongError {
  const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;
  return new RetryAfterTooLongError({
    code: "EGP_RETRY_AFTER_TOO_LONG",
    message: `${cause.method} ${cause.path}: HTTP ${cause.status} asked to retry after ${seconds(askedMs)} (Retry-After), longer than the ${seconds(maxMs)} egp waits (retry.maxRetryAfterMs); not retried`,
    ...carriedFrom(cause),
    retryAfterMs: askedMs,
  });
}

// ---- connection-level failures

const DEADLINE: ErrorCode = "EGP_REQUEST_DEADLINE";

/** The abort reason of a try that passed its deadline (`timeouts.request`); connectionErrorOf makes it EGP_TIMEOUT. */
export function requestDeadline(ms: number, request: { method: string; path: string }): EgpError {
  return Object.assign(
    new EgpError(DEADLINE, `${request.method} ${request.path}: no complete answer within ${ms / 1000} s`),
    { deadlineMs: ms },
  );
}

const NOT_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);
const TIMEOUTS = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "ETIMEDOUT"]);
const TLS = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_UNTRUSTED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

function codeOf(error: unknown): string | undefined {
  const own = (error as { code?: unknown })?.code;
  if (typeof own === "string") return own;
  const inner = (error as { cause?: { code?: unknown } })?.cause?.code;
  return typeof inner === "string" ? inner : undefined;
}

/** TLS spoken to a server that answers in plain HTTP: its first bytes are no TLS record. */
const NOT_TLS = new Set([
  "ERR_SSL_WRONG_VERSION_NUMBER",
  "ERR_SSL_PACKET_LENGTH_TOO_LONG",
  "ERR_SSL_HTTP_REQUEST",
]);
const NOT_TLS_TEXT = /wrong version number|packet length too long|http request/i;

/** What connection failures a person can act on, in words. */
const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: "nothing is listening there",
  ENOTFOUND: "no such host",
  EAI_AGAIN: "the host name could not be resolved now",
  EHOSTUNREACH: "the host is unreachable",
  ENETUNREACH: "the network is unreachable",
  ECONNRESET: "the connection was reset",
};

/** The instance a client talks to: its name (the CLI's environment) and its url. */
export interface ConnectionTarget {
  name?: string;
  url: string;
}

/** `prod (http://host:8080)`, or the url alone for a client without a name. */
function targetOf(target: ConnectionTarget | undefined): string {
  if (!target) return "";
  return target.name ? `${target.name} (${target.url}): ` : `${target.url}: `;
}

/** ` in environments/<name>.yaml`, the file a person edits, when the client knows its environment. */
const inFileOf = (target: ConnectionTarget | undefined) =>
  target?.name ? ` in environments/${target.name}.yaml` : "";

/** Where a person looks when an instance can't be reached. */
function reachHint(target: ConnectionTarget | undefined): string {
  return `check that the instance is up and the url${inFileOf(target)}`;
}

/** What to do about a certificate egp can't verify: give its CA; skipping verification comes last. */
function caHint(target: ConnectionTarget | undefined): string {
  return `give the CA that issued it as tls.caFile${inFileOf(target)} (tls.insecure skips verification: for a test instance only)`;
}

/** Maps a failure below HTTP (undici or socket error) to a ConnectionError. */
export function connectionErrorOf(
  error: unknown,
  request: { method: string; path: string },
  target?: ConnectionTarget,
): ConnectionError {
  const low = codeOf(error) ?? "UNKNOWN";
  // Addresses, paths and the network's own words hold no secret: a value equal to one is left as
  // it is (redact.ts), so patterns only.
  const base = { method: request.method, path: request.path, cause: error, scrub: scrubPatterns };
  const reason = (error as Error)?.message ?? String(error);
  const where = targetOf(target);
  if (NOT_TLS.has(low) || (low.startsWith("ERR_SSL") && NOT_TLS_TEXT.test(reason))) {
    return new ConnectionError({
      ...base,
      code: "EGP_TLS",
      sent: false,
      message: `${where}${request.method} ${request.path}: the server doesn't seem to speak TLS (${low}); check the url's scheme: http:// for a plain-HTTP port, https:// for TLS`,
    });
  }
  if (TLS.has(low) || low.startsWith("ERR_TLS") || low.startsWith("ERR_SSL")) {
    return new ConnectionError({
      ...base,
      code: "EGP_TLS",
      sent: false,
      message: `${where}${request.method} ${request.path}: the server's certificate was rejected (${low}); ${caHint(target)}`,
    });
  }
  if (low === DEADLINE) {
    const ms = (error as { deadlineMs: number }).deadlineMs;
    return new ConnectionError({
      ...base,
      code: "EGP_TIMEOUT",
      sent: true,
      message: `${request.method} ${request.path}: no complete answer within ${ms / 1000} s (timeouts.request of the environment file)`,
    });
  }
  if (low === "UND_ERR_CONNECT_TIMEOUT") {
    return new ConnectionError({
      ...base,
      code: "EGP_TIMEOUT",
      sent: false,
      message: `${where}${request.method} ${request.path}: connect timed out; ${reachHint(target)}`,
    });
  }
  if (TIMEOUTS.has(low) || (error as Error)?.name === "TimeoutError") {
    return new ConnectionError({
      ...base,
      code: "EGP_TIMEOUT",
      sent: true,
      message: `${request.method} ${request.path}: timed out waiting for the answer (${low})`,
    });
  }
  const sent = !NOT_SENT.has(low);
  const words = UNREACHABLE[low];
  if (!sent && words) {
    return new ConnectionError({
      ...base,
      code: "EGP_CONNECTION",
      sent,
      message: `${where}${request.method} ${request.path}: cannot connect (${low}: ${words}); ${reachHint(target)}`,
    });
  }
  return new ConnectionError({
    ...base,
    code: "EGP_CONNECTION",
    sent,
    message: `${where}${request.method} ${request.path}: connection failed (${low}): ${reason}`,
  });
}

/** Wraps the failure of a create that may have happened anyway. */
export function outcomeUnknown(cause: PlatformError, scrub?: Scrub): OutcomeUnknownError {
  return new OutcomeUnknownError({
    code: "EGP_OUTCOME_UNKNOWN",
    message: `${cause.method} ${cause.path}: the outcome is unknown (${cause.code}${cause.status ? `, HTTP ${cause.status}` : ""}); re-read the live state before trying again`,
    ...carriedFrom(cause),
    scrub,
  });
}

/**
 * An instance's answer that it does not offer a read at all, as opposed to a read that failed: not
 * found or not allowed (400, 404, 405, 501, as a JSON envelope or the web server's HTML page), or a
 * success that is not the resource. Reads beyond the interface description (the package list, the
 * group list of older instances) go on without the read on these.
 */
export function notOffered(error: unknown): boolean {
  if (error instanceof ResponseShapeError) return true;
  return error instanceof PlatformError && [400, 404, 405, 501].includes(error.status ?? 0);
}

import pRetry from "p-retry";
import type { SafeParse } from "../schema/validate.ts";
import { Deadlines } from "./deadlines.ts";
import { type DecodeContext, type Decoder, messagesOf, parseJson } from "./envelope.ts";
import {
  AuthError,
  ConnectionError,
  type ConnectionTarget,
  connectionErrorOf,
  errorFromResponse,
  NotFoundError,
  outcomeUnknown,
  PlatformError,
  ResponseShapeError,
  ResponseTooLargeError,
  type RetryAfterTooLongError,
  requestDeadline,
  retryAfterOf,
  retryAfterTooLong,
} from "./errors.ts";
import { type RateLimiter, realSleep, type Semaphore } from "./limits.ts";
import type { ClientLog } from "./logger.ts";
import type { ClientMachinery } from "./machinery.ts";
import type { MultipartBody } from "./multipart.ts";
import type { ClientOptions } from "./options.ts";
import type { Paths } from "./paths.ts";
import { type Scrub, type Scrubber, scrubPatterns } from "./redact.ts";
import { delayFor, outcomeOf, type RetryPolicy, shouldRetry } from "./retry.ts";
import { currentRetryBudget } from "./retry-budget.ts";
import type { Route } from "./route.ts";
import type { Session } from "./session.ts";
import type { StatsRecorder } from "./stats.ts";
import {
  type BodySink,
  type Collected,
  type Exchange,
  isSinkError,
  type RawResponse,
  type Transport,
} from "./transport.ts";
import type { EndWait, Waits } from "./waits.ts";

/*
 * Runs one call of the interface, in layers:
 *   call        → session (lazy login; on a 401, one re-login and one more try)
 *   viaPrefixes → prefix discovery (the first prefix that does not answer 404 is cached)
 *   withRetry   → p-retry with the pure shouldRetry/delayFor (idempotent calls only)
 *   attempt     → limits, one HTTP exchange, status and envelope checks
 * A create that fails without a clear answer becomes OutcomeUnknownError and is never repeated.
 */

export type Verb = "GET" | "POST" | "PUT" | "DELETE";

export interface Call<T> {
  method: Verb;
  /** A read sent as POST with `X-Http-Method-Override: GET`. */
  override?: boolean;
  route: Route;
  query?: Array<[string, string]>;
  json?: unknown;
  multipart?: MultipartBody;
  /** Default true: the call needs the session. */
  auth?: boolean;
  /** Sends this token without managing the session (logout). */
  token?: string;
  /** Default: reads, PUT and DELETE are; POST is not. */
  idempotent?: boolean;
  login?: boolean;
  /** Returned for an empty success body, when the seed allows one (history, delete). */
  emptyAs?: unknown;
  /** Decodes a successful JSON body. */
  decode?: Decoder<T>;
  /** Consumes a successful response itself (downloads). */
  consume?: (response: RawResponse, context: DecodeContext) => Promise<T>;
  /**
   * For a GET: where a successful body goes as it arrives (transport getInto); `consume` then sees
   * `response.taken`. The sink's own errors are passed on as they are, never retried.
   */
  sink?: BodySink;
  /** How wait notices name the call; default: its method and path. */
  what?: string;
}

export interface CallerDeps {
  options: ClientOptions;
  transport: Transport;
  paths: Paths;
  scrubber: Scrubber;
  log: ClientLog;
  stats: StatsRecorder;
  semaphore: Semaphore;
  limiter: RateLimiter;
  waits: Waits;
  /** The speed machinery's variants (machinery.ts); none: the defaults. */
  machinery?: ClientMachinery;
}

const ERROR_BODY_LIMIT = 1024 * 1024;

export class Caller {
  private readonly deps: CallerDeps;
  private readonly origin: string;
  private readonly target: ConnectionTarget;
  /** The url as messages show it: `[redacted]` when it came from `${VAR}`. */
  private readonly shown: string;
  /** An answer came back once: the instance was reachable, so a lost connection is worth retrying. */
  private reached = false;
  private readonly policy: RetryPolicy;
  private readonly deadlines = new Deadlines();
  private readonly limitOf: (status: number) => number;
  private session: Session | undefined;
  private closed = false;

  constructor(deps: CallerDeps) {
    this.deps = deps;
    this.origin = deps.options.url.replace(/\/+$/, "");
    this.shown = deps.options.shownUrl ?? this.origin;
    this.target = { ...(deps.options.name ? { name: deps.options.name } : {}), url: this.shown };
    this.policy = deps.options.retry;
    const maxBytes = deps.options.limits.maxResponseBytes;
    this.limitOf = (status) => (status >= 200 && status < 300 ? maxBytes : ERROR_BODY_LIMIT);
  }

  /** Largest package file a download of this client writes (`limits.packageBytes`). */
  get packageBytes(): number {
    return this.deps.options.limits.packageBytes;
  }

  /** The client's log, for what a resource says of its own choices. */
  get log(): ClientLog {
    return this.deps.log;
  }

  /** The client's own undici Agent sends requests: upload buffers may be reused, download chunks freed. */
  get ownsTransport(): boolean {
    return this.deps.options.dispatcher === undefined;
  }

  useSession(session: Session): void {
    this.session = session;
  }

  /** Later calls fail at once instead of retrying against a closed agent. */
  markClosed(): void {
    this.closed = true;
  }

  async call<T>(call: Call<T>): Promise<T> {
    if (this.closed) {
      throw new ConnectionError({
        code: "EGP_CONNECTION",
        message: `${call.method} ${call.route.path}: the client is closed; create a new one`,
        sent: false,
      });
    }
    if (call.auth === false || !this.session) return this.viaPrefixes(call, call.token);
    // An open session's token is at hand: no promise to wait for.
    const { active } = this.session;
    const token = active !== undefined && !this.session.refused ? active : await this.session.current();
    try {
      return await this.viaPrefixes(call, token);
    } catch (error) {
      if (!(error instanceof AuthError) || error.status !== 401) throw error;
      this.deps.log.debug({ route: call.route.template }, "session refused; logging in again");
      const fresh = await this.session.renew(token);
      return this.viaPrefixes(call, fresh);
    }
  }

  private async viaPrefixes<T>(call: Call<T>, token: string | undefined): Promise<T> {
    const { paths } = this.deps;
    const family = call.route.family;
    const candidates = paths.candidates(family);
    let firstMiss: NotFoundError | undefined;
    for (let index = 0; index < candidates.length; index++) {
      const prefix = candidates[index] as string;
      const last = index === candidates.length - 1;
      try {
        const result = await this.withRetry(call, prefix, token);
        this.settle(family, prefix);
        return result;
      } catch (error) {
        if (error instanceof NotFoundError && !last) {
          this.deps.log.debug({ prefix, route: call.route.template }, "prefix answered 404; trying the next");
          firstMiss ??= error;
          continue;
        }
        if (answered(error)) this.settle(family, prefix);
        if (error instanceof NotFoundError && firstMiss) throw call.login ? this.noApi(firstMiss) : firstMiss;
        throw error;
      }
    }
    throw new Error("unreachable: no prefix candidates");
  }

  private settle(family: Route["family"], prefix: string): void {
    if (this.deps.paths.isSettled(family)) return;
    this.deps.paths.settle(family, prefix);
    this.deps.log.debug({ family, prefix }, "prefix settled");
  }

  private noApi(cause: NotFoundError): NotFoundError {
    return new NotFoundError({
      code: "EGP_NO_API",
      message: `Neither /platformapi nor /api answers the login at ${this.shown}; check the url option`,
      status: 404,
      method: cause.method,
      path: cause.path,
      cause,
      scrub: this.deps.scrubber.scrub,
    });
  }

  private async withRetry<T>(call: Call<T>, prefix: string, token: string | undefined): Promise<T> {
    const idempotent = call.idempotent ?? (call.override === true || call.method !== "POST");
    const sleep = this.deps.options.sleep ?? realSleep;
    const random = this.deps.options.random ?? Math.random;
    // The notices, and the overall deadline of a JSON call, run from the first send to the end of
    // the last try, retry pauses included: retries never stretch a call past timeouts.requestMs.
    let endWait: EndWait | undefined;
    let until: number | undefined;
    const sending = (): number => {
      endWait ??= this.deps.waits.start(
        call.what ?? (() => `${call.method} ${scrubPatterns(prefix + call.route.path)}`),
      );
      until ??= Date.now() + this.deps.options.timeouts.requestMs;
      return until;
    };
    let refused: RetryAfterTooLongError | undefined;
    const budget = currentRetryBudget();
    const tryOnce = (attempt: number) => this.attempt(call, prefix, token, attempt, idempotent, sending);
    try {
      // Most calls succeed at the first try: it runs before p-retry is set up, and a failure is
      // handed to p-retry as the outcome of its first attempt, so the retry rules stay p-retry's.
      let first: unknown;
      try {
        return await tryOnce(1);
      } catch (error) {
        first = error;
      }
      return await pRetry((attempt) => (attempt === 1 ? Promise.reject(first) : tryOnce(attempt)), {
        retries: this.policy.retries,
        minTimeout: 0,
        shouldRetry: async ({ error, attemptNumber }) => {
          if (!shouldRetry(outcomeOf(error, idempotent), attemptNumber, this.policy)) return false;
          // Nothing listening, or no such host, before anything ever answered: a wrong url or an
          // instance that is down, which retries would only report seconds later.
          if (!this.reached && unreachable(error)) return false;
          const headers = error instanceof PlatformError ? error.headers : undefined;
          const asked = retryAfterOf(headers, Date.now());
          if (asked !== undefined && asked > this.policy.maxRetryAfterMs) {
            refused = retryAfterTooLong(error as PlatformError, asked, this.policy.maxRetryAfterMs);
            return false;
          }
          const delayMs = delayFor(attemptNumber, headers, this.policy, random);
          if (!isTransfer(call) && until !== undefined && Date.now() + delayMs >= until) return false;
          if (budget && !budget.take(delayMs)) return false;
          this.deps.stats.retry();
          this.deps.log.debug(
            { route: call.route.template, attempt: attemptNumber, delayMs, error },
            "retrying",
          );
          await sleep(delayMs);
          return true;
        },
      });
    } catch (error) {
      throw refused ?? error;
    } finally {
      endWait?.();
    }
  }

  private async attempt<T>(
    call: Call<T>,
    prefix: string,
    token: string | undefined,
    attempt: number,
    idempotent: boolean,
    sending: () => number,
  ): Promise<T> {
    const { log, scrubber, limiter, semaphore } = this.deps;
    const path = prefix + call.route.path;
    const target = path + queryString(call.query);
    // The path is egp's own text (names, never a secret): only secret-shaped patterns leave it,
    // when something shows it (a notice, a log line, an error), not for every request.
    let shown: string | undefined;
    const context = lazyContext(
      call,
      scrubber.scrub,
      () => (shown ??= scrubPatterns(target)),
      this.deps.machinery?.validate,
    );
    const spaced = limiter.acquire();
    if (spaced) await spaced;
    const release = semaphore.tryAcquire() ?? (await semaphore.acquire());
    const until = sending();
    const exchange = this.exchangeOf(call, path, token);
    const started = performance.now();
    let status: number | undefined;
    try {
      // The logger scrubs every string it writes (and redacts the headers), so the path goes as it is.
      log.trace(
        {
          req: { method: exchange.method, path: target, headers: exchange.headers },
          body: call.json,
          attempt,
        },
        "request",
      );
      if (isTransfer(call)) {
        const response = await this.sendTransfer(call, exchange, context);
        status = response.statusCode;
        this.reached = true;
        context.status = status;
        log.trace({ status, path: target, ms: Math.round(performance.now() - started) }, "response");
        return await this.handle(call, response, context);
      }
      const answer = await this.collect(call, exchange, until, context);
      status = answer.statusCode;
      this.reached = true;
      context.status = status;
      log.trace({ status, path: target, ms: Math.round(performance.now() - started) }, "response");
      return this.decodeAnswer(call, answer, context);
    } catch (error) {
      log.debug({ path: target, attempt, error }, "attempt failed");
      throw idempotent ? error : unknownIfUnclear(error, scrubber.scrub);
    } finally {
      release();
      this.deps.stats.request({
        method: call.method,
        path,
        route: call.route.template,
        attempt,
        status,
        durationMs: performance.now() - started,
      });
    }
  }

  /** A package file's exchange (a download, an upload): streamed, and not bound by the request deadline. */
  private async sendTransfer(
    call: Call<unknown>,
    exchange: Exchange,
    context: DecodeContext,
  ): Promise<RawResponse> {
    const { transport } = this.deps;
    const sent = exchange.sink ? transport.getInto(exchange, exchange.sink) : transport.send(exchange);
    return sent.catch((error: unknown) => {
      if (isSinkError(error)) throw error;
      throw connectionErrorOf(error, { method: call.method, path: context.path }, this.target);
    });
  }

  /**
   * A JSON call's exchange, its answer collected whole; the try is aborted when the call's deadline
   * passes before its complete answer.
   */
  private async collect(
    call: Call<unknown>,
    exchange: Exchange,
    until: number,
    context: DecodeContext,
  ): Promise<Collected> {
    const { transport } = this.deps;
    const collecting = transport.collect(exchange, this.limitOf);
    const ms = this.deps.options.timeouts.requestMs;
    const clear = this.deadlines.add(until, () =>
      collecting.abort(requestDeadline(ms, { method: call.method, path: context.path })),
    );
    try {
      return await collecting.answer;
    } catch (error) {
      throw connectionErrorOf(error, { method: call.method, path: context.path }, this.target);
    } finally {
      clear();
    }
  }

  private decodeAnswer<T>(call: Call<T>, answer: Collected, context: DecodeContext): T {
    const { statusCode: status, cut } = answer;
    // A body cut short still tells us the status; the messages are a bonus.
    if (status < 200 || status >= 300) throw refusal(context, textOf(answer.chunks), answer.headers);
    if (cut?.over) throw tooLarge(context, this.deps.options.limits.maxResponseBytes);
    if (cut) throw connectionErrorOf(cut.error, context, this.target);
    return decodeText(call, textOf(answer.chunks), context);
  }

  private exchangeOf(call: Call<unknown>, path: string, token: string | undefined): Exchange {
    const headers: Record<string, string> = { accept: "application/json" };
    if (token) headers.authorization = `${this.deps.options.scheme} session-id="${token}"`;
    if (call.override) headers["x-http-method-override"] = "GET";
    const url = this.origin + path + queryString(call.query);
    if (call.multipart) {
      const { headers: framing, body, onBodySent } = call.multipart.open();
      return {
        method: call.method,
        url,
        headers: { ...headers, ...framing },
        body,
        ...(onBodySent ? { onBodySent } : {}),
      };
    }
    if (call.json !== undefined) {
      headers["content-type"] = "application/json";
      return { method: call.method, url, headers, body: JSON.stringify(call.json) };
    }
    // The seed's reads carry the JSON content type and no body.
    if (call.method !== "GET" || call.override) headers["content-type"] = "application/json";
    return { method: call.method, url, headers, ...(call.sink ? { sink: call.sink } : {}) };
  }

  private async handle<T>(call: Call<T>, response: RawResponse, context: DecodeContext): Promise<T> {
    const status = response.statusCode;
    if (status < 200 || status >= 300)
      throw refusal(context, await readCapped(response, ERROR_BODY_LIMIT), response.headers);
    if (call.consume) return call.consume(response, context);
    const text = await readJsonText(response, this.deps.options.limits.maxResponseBytes, context);
    return decodeText(call, text, context);
  }
}

/** The error of an answer that is not a success, with the validation messages its body carries. */
function refusal(context: DecodeContext, text: string, headers: RawResponse["headers"]): PlatformError {
  return errorFromResponse({ ...context, messages: messagesOf(tryJson(text)), headers });
}

/** A successful JSON answer's value: `emptyAs` for an empty body where allowed, else decoded. */
function decodeText<T>(call: Call<T>, text: string, context: DecodeContext): T {
  if (text.trim() === "" && "emptyAs" in call) return call.emptyAs as T;
  const payload = parseJson(text, context);
  if (!call.decode) return undefined as T;
  return call.decode(payload, context);
}

/** Package files (a download's consumer, an upload's multipart body) are not bound by the request deadline. */
function isTransfer(call: Call<unknown>): boolean {
  return call.consume !== undefined || call.sink !== undefined || call.multipart !== undefined;
}

/**
 * Reads a body into `chunks` until it ends or passes `limit` bytes; true when it was cut there.
 * What arrived before a failure stays in `chunks`.
 */
async function collect(response: RawResponse, limit: number, chunks: Buffer[]): Promise<boolean> {
  let size = 0;
  for await (const chunk of response.body) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) return true;
    chunks.push(buffer);
  }
  return false;
}

/** A JSON body as text, counted as it streams in: a failure mid-body is a ConnectionError. */
async function readJsonText(response: RawResponse, limit: number, context: DecodeContext): Promise<string> {
  const chunks: Buffer[] = [];
  let over: boolean;
  try {
    over = await collect(response, limit, chunks);
  } catch (error) {
    throw connectionErrorOf(error, context);
  }
  if (over) {
    response.body.destroy();
    throw tooLarge(context, limit);
  }
  return textOf(chunks);
}

function tooLarge(context: DecodeContext, limit: number): ResponseTooLargeError {
  return new ResponseTooLargeError({
    code: "EGP_RESPONSE_TOO_LARGE",
    message: `${context.method} ${context.path}: the answer is larger than limits.maxResponseBytes (${limit} bytes); stopped reading it`,
    status: context.status,
    method: context.method,
    path: context.path,
    scrub: context.scrub,
  });
}

/** A body's text; a body in one chunk (most JSON reads) is decoded without a copy. */
function textOf(chunks: Buffer[]): string {
  if (chunks.length === 1) return (chunks[0] as Buffer).toString("utf8");
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * What decoders and errors know of a try. `path` is the scrubbed path, computed when first read
 * (an error, a notice), not for every request; `status` is set once the answer comes.
 */
function lazyContext(
  call: Call<unknown>,
  scrub: Scrub,
  shown: () => string,
  validate: SafeParse | undefined,
): DecodeContext {
  return {
    ...(validate ? { validate } : {}),
    method: call.method,
    get path() {
      return shown();
    },
    status: 0,
    scrub,
    login: call.login,
  };
}

/** The server answered (anything but a 404): the prefix exists. */
function answered(error: unknown): boolean {
  if (error instanceof ResponseShapeError) return true;
  return error instanceof PlatformError && error.status !== undefined && error.status !== 404;
}

/** A failed create whose answer is unclear (5xx, timeout or reset after sending) may have happened. */
function unknownIfUnclear(error: unknown, scrub: (text: string) => string): unknown {
  if (error instanceof ConnectionError) return error.sent ? outcomeUnknown(error, scrub) : error;
  if (
    error instanceof PlatformError &&
    error.status !== undefined &&
    error.status >= 500 &&
    error.status !== 501
  ) {
    return outcomeUnknown(error, scrub);
  }
  return error;
}

export function queryString(query: Array<[string, string]> | undefined): string {
  if (!query || query.length === 0) return "";
  // `$` stays literal in OData option names; everything else is percent-encoded.
  const encode = (text: string) => encodeURIComponent(text).replace(/%24/g, "$");
  return `?${query.map(([key, value]) => `${encode(key)}=${encode(value)}`).join("&")}`;
}

async function readCapped(response: RawResponse, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  try {
    await collect(response, limit, chunks);
  } catch {
    // A body cut short still tells us the status; the messages are a bonus.
  } finally {
    response.body.destroy();
  }
  return textOf(chunks);
}

function tryJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** A connection that was never made because nothing answered at the address. */
function unreachable(error: unknown): boolean {
  return error instanceof ConnectionError && !error.sent && error.code === "EGP_CONNECTION";
}

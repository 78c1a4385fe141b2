import { readFileSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { Readable } from "node:stream";
import { rootCertificates } from "node:tls";
import type { Dispatcher, FormData } from "undici";
import { ClientOptionsError } from "./errors.ts";
import type { Chunks } from "./file-source.ts";
import type { ClientOptions } from "./options.ts";
import { Agent, request } from "./undici.ts";

/*
 * One HTTP exchange through undici, nothing more: retries, sessions and decoding live above.
 * TLS: verification is on unless `insecure`; a CA file is trusted in addition to the public roots,
 * so that a proxy's private CA works without losing the public ones.
 */

export interface Exchange {
  method: "GET" | "POST" | "PUT" | "DELETE";
  url: string;
  headers: Record<string, string>;
  /** A FormData is encoded by undici at each send, with its Content-Length. */
  body?: string | Chunks | FormData;
  /** Told of each piece of the body written to the socket (an upload's progress). */
  onBodySent?: (bytes: number) => void;
  /** A GET whose successful body goes to a sink as it arrives (getInto). */
  sink?: BodySink;
  /** Aborts the exchange, its body included (the caller's overall deadline of a JSON call). */
  signal?: AbortSignal;
}

/** `taken`: the body went to the exchange's sink (getInto); the response's body is then empty. */
export type RawResponse = Dispatcher.ResponseData & { taken?: boolean };

/** Where getInto hands a body over, chunk by chunk, as undici parses it. */
export interface BodySink {
  /** The answer's status and headers; true to take the body, false to have it collected. */
  onHead(status: number, headers: IncomingHttpHeaders): boolean;
  /** A chunk of the body; a promise stops reading from the socket until it settles. */
  onData(chunk: Buffer): undefined | Promise<void>;
}

/** An answer collected whole by `collect`. */
export interface Collected {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** The body's chunks as they arrived (all of them, or those before `cut`). */
  chunks: Buffer[];
  /** Why the body is incomplete: past the limit (reading stopped there), or the failure that cut it. */
  cut?: { over: true } | { over: false; error: unknown };
}

/** A `collect` under way: its answer, and how to abort it (the caller's deadline). */
export interface Collecting {
  answer: Promise<Collected>;
  abort(reason: Error): void;
}

export interface Transport {
  send(exchange: Exchange): Promise<RawResponse>;
  /**
   * An exchange whose answer (head and body) is collected whole in memory, through undici's
   * dispatch API: no body stream, no abort signal. At most `limitOf(status)` bytes of the body are
   * kept; past that, reading stops. Rejects only when no answer head arrived (a connection
   * failure, a headers timeout, an abort before the answer); a body cut short is in `cut`.
   */
  collect(exchange: Exchange, limitOf: (status: number) => number): Collecting;
  /**
   * A GET whose successful body goes to `sink` (a package download to a file); an answer the sink
   * does not take comes back with its body, as from `send`. The sink's own errors are marked
   * (isSinkError) and passed on as they are.
   */
  getInto(exchange: Exchange, sink: BodySink): Promise<RawResponse>;
  close(): Promise<void>;
}

/** Most bytes kept of a body the sink does not take (an error answer, a JSON envelope). */
const COLLECT_LIMIT = 1024 * 1024;

/** Marks an error thrown by a sink, so that it is passed on as it is. */
const SINK_ERROR = Symbol("sink error");

export function isSinkError(error: unknown): boolean {
  return typeof error === "object" && error !== null && SINK_ERROR in error;
}

function markSink(error: unknown): unknown {
  if (typeof error === "object" && error !== null) return Object.assign(error, { [SINK_ERROR]: true });
  return error;
}

function isStreamed(exchange: Exchange): boolean {
  return exchange.body !== undefined && typeof exchange.body !== "string";
}

function caOf(caFile: string): string[] {
  try {
    return [...rootCertificates, readFileSync(caFile, "utf8")];
  } catch (error) {
    throw new ClientOptionsError([`tls.caFile: cannot read ${caFile}: ${(error as Error).message}`], error);
  }
}

function ownAgent(options: ClientOptions, ca: string[] | undefined): Agent {
  const { tls, timeouts } = options;
  return new Agent({
    connect: {
      timeout: timeouts.connectMs,
      rejectUnauthorized: !tls.insecure,
      ...(ca ? { ca } : {}),
    },
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
    // Every exchange holds one of `concurrency` slots (caller.ts): more connections would only be
    // opened to sit idle, each costing a remote instance its handshakes.
    connections: options.limits.concurrency,
  });
}

/** A collected body, with the parts of undici's body the caller uses (text, iteration, destroy). */
function bufferedBody(bytes: Buffer): RawResponse["body"] {
  const body = Readable.from(bytes.length > 0 ? [bytes] : []);
  return Object.assign(body, {
    text: async () => bytes.toString("utf8"),
    json: async () => JSON.parse(bytes.toString("utf8")) as unknown,
  }) as unknown as RawResponse["body"];
}

/**
 * The dispatcher, telling `onBodySent` of each piece of a request body written to the socket (the
 * request API has no such hook of its own; undici's dispatch handlers do).
 */
function counting(dispatcher: Dispatcher, onBodySent: ((bytes: number) => void) | undefined): Dispatcher {
  if (!onBodySent) return dispatcher;
  return dispatcher.compose(
    (dispatch) => (options, handler) =>
      dispatch(options, {
        onRequestStart: (controller, context) => handler.onRequestStart?.(controller, context),
        onRequestUpgrade: (controller, status, headers, socket) =>
          handler.onRequestUpgrade?.(controller, status, headers, socket),
        onResponseStart: (controller, status, headers, message) =>
          handler.onResponseStart?.(controller, status, headers, message),
        onResponseData: (controller, chunk) => handler.onResponseData?.(controller, chunk),
        onResponseEnd: (controller, trailers) => handler.onResponseEnd?.(controller, trailers),
        onResponseError: (controller, error) => handler.onResponseError?.(controller, error),
        onBodySent: (chunk) => {
          onBodySent(chunk.length);
          handler.onBodySent?.(chunk);
        },
      }),
  );
}

export function createTransport(options: ClientOptions): Transport {
  if (options.dispatcher && (options.tls.caFile || options.tls.insecure)) {
    throw new ClientOptionsError([
      "tls: set TLS options on the dispatcher you pass, not on the client (they would be ignored)",
    ]);
  }
  const ca = options.tls.caFile ? caOf(options.tls.caFile) : undefined;
  const owned = options.dispatcher ? undefined : ownAgent(options, ca);
  const dispatcher = options.dispatcher ?? (owned as Agent);
  return {
    getInto: (exchange, sink) => dispatchInto(dispatcher, exchange, sink, options.timeouts),
    collect: (exchange, limitOf) => dispatchCollect(dispatcher, exchange, limitOf, options.timeouts),
    send: (exchange) =>
      request(counting(dispatcher, exchange.onBodySent), exchange.url, {
        method: exchange.method,
        headers: exchange.headers,
        // undici sends an async iterable chunk by chunk (its types list streams only).
        body: exchange.body as string | Readable | FormData | undefined,
        // Per request as well, so that an injected dispatcher honours the client's timeouts. After
        // the last byte of a streamed upload (a package) the server may take long to store and
        // check it: that wait is bound by the stall timeout, as the upload itself is.
        headersTimeout: isStreamed(exchange)
          ? Math.max(options.timeouts.headersMs, options.timeouts.bodyMs)
          : options.timeouts.headersMs,
        bodyTimeout: options.timeouts.bodyMs,
        ...(exchange.signal ? { signal: exchange.signal } : {}),
      }),
    close: async () => {
      await owned?.close();
    },
  };
}

/**
 * The GET of getInto, through undici's dispatch handler API: each chunk goes from the parser to
 * the sink with no body stream in between. While the sink works on a chunk in the background, the
 * parser is paused (undici then stops reading the socket): at most one chunk waits in memory.
 */
function dispatchInto(
  dispatcher: Dispatcher,
  exchange: Exchange,
  sink: BodySink,
  timeouts: ClientOptions["timeouts"],
): Promise<RawResponse> {
  const url = new URL(exchange.url);
  return new Promise<RawResponse>((resolve, reject) => {
    let status = 0;
    let headers: IncomingHttpHeaders = {};
    let taken = false;
    const collected: Buffer[] = [];
    let collectedBytes = 0;
    /** The sink's work on a chunk, while the parser is paused. */
    let writing: Promise<void> | undefined;
    let settled = false;
    // Settles only once the sink is done with its chunk: the caller may close its file next.
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      void (writing ?? Promise.resolve()).then(outcome, outcome);
    };
    const fail = (error: unknown) => settle(() => reject(error));
    const sinkFailed = (controller: Dispatcher.DispatchController, error: unknown) => {
      const marked = markSink(error);
      fail(marked);
      if (!controller.aborted) controller.abort(marked as Error);
    };
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart() {}, // required by undici
      onResponseStart(controller, statusCode, responseHeaders) {
        if (statusCode < 200) return;
        status = statusCode;
        headers = responseHeaders;
        try {
          taken = sink.onHead(statusCode, responseHeaders);
        } catch (error) {
          sinkFailed(controller, error);
        }
      },
      onResponseData(controller, chunk) {
        // After a resume with nothing new on the socket, the parser hands over an empty chunk: a
        // sink that paused on it would be resumed into another one, forever (a sink settling in
        // a microtask then starves the event loop, and the socket is never read again).
        if (settled || chunk.length === 0) return;
        if (!taken) {
          if (collectedBytes < COLLECT_LIMIT) {
            const kept = chunk.subarray(0, COLLECT_LIMIT - collectedBytes);
            collected.push(kept);
            collectedBytes += kept.length;
          }
          return;
        }
        let waiting: undefined | Promise<void>;
        try {
          waiting = sink.onData(chunk);
        } catch (error) {
          return sinkFailed(controller, error);
        }
        if (!waiting) return;
        controller.pause();
        writing = waiting.then(
          () => {
            writing = undefined;
            if (!settled) controller.resume();
          },
          (error: unknown) => {
            writing = undefined;
            sinkFailed(controller, error);
          },
        );
      },
      onResponseEnd() {
        settle(() =>
          resolve({
            statusCode: status,
            statusText: "",
            headers,
            body: bufferedBody(Buffer.concat(collected)),
            trailers: {},
            opaque: null,
            context: {},
            taken,
          }),
        );
      },
      onResponseError(_controller, error) {
        fail(error);
      },
    };
    try {
      dispatcher.dispatch(
        {
          origin: url.origin,
          path: url.pathname + url.search,
          method: "GET",
          headers: exchange.headers,
          headersTimeout: timeouts.headersMs,
          bodyTimeout: timeouts.bodyMs,
        },
        handler,
      );
    } catch (error) {
      fail(error);
    }
  });
}

/** Aborts an exchange whose body passed its limit; never seen by the caller (the answer is settled). */
const OVER_LIMIT = new Error("the answer passed its size limit");

/**
 * The handler of `collect`: one object per exchange with its methods on the prototype, since a JSON
 * read is the client's most frequent exchange.
 */
class Collector implements Dispatcher.DispatchHandler {
  private readonly limitOf: (status: number) => number;
  private readonly resolve: (collected: Collected) => void;
  private readonly reject: (error: unknown) => void;
  private controller: Dispatcher.DispatchController | undefined;
  private reason: Error | undefined;
  private settled = false;
  private head: { statusCode: number; headers: IncomingHttpHeaders } | undefined;
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  private limit = 0;

  constructor(
    limitOf: (status: number) => number,
    resolve: (collected: Collected) => void,
    reject: (error: unknown) => void,
  ) {
    this.limitOf = limitOf;
    this.resolve = resolve;
    this.reject = reject;
  }

  abort(reason: Error): void {
    if (this.settled) return;
    if (this.controller) {
      if (!this.controller.aborted) this.controller.abort(reason);
      return;
    }
    // Not started yet: it fails now, and is aborted as soon as undici starts it.
    this.reason = reason;
    this.fail(reason);
  }

  /** The dispatch threw before undici started the exchange, so there is no controller to abort. */
  notStarted(error: unknown): void {
    this.fail(error);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.reason) controller.abort(this.reason);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ): void {
    if (statusCode < 200) return;
    this.head = { statusCode, headers };
    this.limit = this.limitOf(statusCode);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    this.bytes += chunk.length;
    if (this.bytes > this.limit) {
      this.finish({ over: true });
      controller.abort(OVER_LIMIT);
      return;
    }
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.head) this.finish(undefined);
    else this.fail(new Error("the exchange ended without an answer"));
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.head) this.finish({ over: false, error });
    else this.fail(error);
  }

  private finish(cut: Collected["cut"]): void {
    if (this.settled || !this.head) return;
    this.settled = true;
    const { statusCode, headers } = this.head;
    this.resolve(
      cut ? { statusCode, headers, chunks: this.chunks, cut } : { statusCode, headers, chunks: this.chunks },
    );
  }

  private fail(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(error);
  }
}

function dispatchCollect(
  dispatcher: Dispatcher,
  exchange: Exchange,
  limitOf: (status: number) => number,
  timeouts: ClientOptions["timeouts"],
): Collecting {
  let collector: Collector | undefined;
  const answer = new Promise<Collected>((resolve, reject) => {
    collector = new Collector(limitOf, resolve, reject);
  });
  const handler = collector as Collector;
  try {
    const url = new URL(exchange.url);
    dispatcher.dispatch(
      {
        origin: url.origin,
        path: url.pathname + url.search,
        method: exchange.method,
        headers: exchange.headers,
        body: exchange.body as string | undefined,
        headersTimeout: timeouts.headersMs,
        bodyTimeout: timeouts.bodyMs,
      },
      handler,
    );
  } catch (error) {
    handler.notStarted(error);
  }
  return { answer, abort: (reason) => handler.abort(reason) };
}

import { readFileSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { rootCertificates } from "node:tls";
import type { Dispatcher } from "undici";
import { ClientOptionsError } from "./errors.ts";
import type { ClientOptions } from "./options.ts";
import { Agent, type FormData, request } from "./undici.ts";

/*
 * One HTTP exchange through undici, nothing more: retries, sessions and decoding live above.
 * TLS: verification is on unless `insecure`; a CA file is trusted in addition to the public roots,
 * so that a proxy's private CA works without losing the public ones.
 */

export interface Exchange {
  method: "GET" | "POST" | "PUT" | "DELETE";
  url: string;
  headers: Record<string, string>;
  /** A FormData is a multipart upload, streamed by undici. */
  body?: string | FormData;
  /** Aborts the exchange, its body included (the caller's overall deadline of a JSON call). */
  signal?: AbortSignal;
}

export type RawResponse = Dispatcher.ResponseData;

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
  close(): Promise<void>;
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
  });
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
    collect: (exchange, limitOf) => dispatchCollect(dispatcher, exchange, limitOf, options.timeouts),
    send: (exchange) =>
      request(dispatcher, exchange.url, {
        method: exchange.method,
        headers: exchange.headers,
        body: exchange.body,
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
    handler.onResponseError(undefined as never, error as Error);
  }
  return { answer, abort: (reason) => handler.abort(reason) };
}

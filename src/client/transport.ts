import { readFileSync } from "node:fs";
import { Readable } from "node:stream";
import { rootCertificates } from "node:tls";
import { Agent, type Dispatcher, request } from "undici";
import { ClientOptionsError } from "./errors.ts";
import type { Chunks } from "./file-source.ts";
import type { ClientOptions } from "./options.ts";
import { type RawGetSink, rawGet } from "./raw-get.ts";

/*
 * One HTTP exchange through undici, nothing more: retries, sessions and decoding live above.
 * TLS: verification is on unless `insecure`; a CA file is trusted in addition to the public roots,
 * so that a proxy's private CA works without losing the public ones.
 */

export interface Exchange {
  method: "GET" | "POST" | "PUT" | "DELETE";
  url: string;
  headers: Record<string, string>;
  body?: string | Chunks;
  /** A GET whose body goes to a sink from one reused buffer, when the transport can (getInto). */
  sink?: RawGetSink;
  /** Aborts the exchange, its body included (the caller's overall deadline of a JSON call). */
  signal?: AbortSignal;
}

/** `taken`: the body went to the exchange's sink (getInto); the response's body is then empty. */
export type RawResponse = Dispatcher.ResponseData & { taken?: boolean };

export interface Transport {
  send(exchange: Exchange): Promise<RawResponse>;
  /**
   * A GET with the client's own connection settings whose successful body goes to `sink`
   * (raw-get.ts); an answer the sink does not take comes back with its body, as from `send`.
   * Absent with an injected dispatcher, whose routing (a proxy) the client cannot reproduce.
   */
  getInto?(exchange: Exchange, sink: RawGetSink): Promise<RawResponse>;
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

/** A collected body, with the parts of undici's body the caller uses (text, iteration, destroy). */
function bufferedBody(bytes: Buffer): RawResponse["body"] {
  const body = Readable.from(bytes.length > 0 ? [bytes] : []);
  return Object.assign(body, {
    text: async () => bytes.toString("utf8"),
    json: async () => JSON.parse(bytes.toString("utf8")) as unknown,
  }) as unknown as RawResponse["body"];
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
  const { timeouts, tls } = options;
  const getInto = async (exchange: Exchange, sink: RawGetSink): Promise<RawResponse> => {
    const result = await rawGet(
      {
        url: exchange.url,
        headers: exchange.headers,
        tls: { ...(ca ? { ca } : {}), rejectUnauthorized: !tls.insecure },
        connectMs: timeouts.connectMs,
        headersMs: timeouts.headersMs,
        bodyMs: timeouts.bodyMs,
      },
      sink,
    );
    return {
      statusCode: result.statusCode,
      statusText: "",
      headers: result.headers,
      body: bufferedBody(result.collected),
      trailers: {},
      opaque: null,
      context: {},
      taken: result.taken,
    };
  };
  return {
    ...(owned ? { getInto } : {}),
    send: (exchange) =>
      request(exchange.url, {
        dispatcher,
        method: exchange.method,
        headers: exchange.headers,
        // undici sends an async iterable chunk by chunk (its types list streams only).
        body: exchange.body as string | Readable | undefined,
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

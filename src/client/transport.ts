import { readFileSync } from "node:fs";
import type { Readable } from "node:stream";
import { rootCertificates } from "node:tls";
import { Agent, type Dispatcher, request } from "undici";
import { ClientOptionsError } from "./errors.ts";
import type { Chunks } from "./file-source.ts";
import type { ClientOptions } from "./options.ts";

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
}

export type RawResponse = Dispatcher.ResponseData;

export interface Transport {
  send(exchange: Exchange): Promise<RawResponse>;
  close(): Promise<void>;
}

function caOf(caFile: string): string[] {
  try {
    return [...rootCertificates, readFileSync(caFile, "utf8")];
  } catch (error) {
    throw new ClientOptionsError([`tls.caFile: cannot read ${caFile}: ${(error as Error).message}`], error);
  }
}

function ownAgent(options: ClientOptions): Agent {
  const { tls, timeouts } = options;
  return new Agent({
    connect: {
      timeout: timeouts.connectMs,
      rejectUnauthorized: !tls.insecure,
      ...(tls.caFile ? { ca: caOf(tls.caFile) } : {}),
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
  const owned = options.dispatcher ? undefined : ownAgent(options);
  const dispatcher = options.dispatcher ?? (owned as Agent);
  return {
    send: (exchange) =>
      request(exchange.url, {
        dispatcher,
        method: exchange.method,
        headers: exchange.headers,
        // undici sends an async iterable chunk by chunk (its types list streams only).
        body: exchange.body as string | Readable | undefined,
        // Per request as well, so that an injected dispatcher honours the client's timeouts.
        headersTimeout: options.timeouts.headersMs,
        bodyTimeout: options.timeouts.bodyMs,
      }),
    close: async () => {
      await owned?.close();
    },
  };
}

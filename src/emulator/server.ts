import { mkdtempSync, rmSync } from "node:fs";
import { maxHeaderSize, type ServerResponse, STATUS_CODES } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from "fastify";
import { failed } from "./envelope.ts";
import { HttpFailure, message } from "./failure.ts";
import { Faults } from "./faults.ts";
import { prefersXml, toXml } from "./negotiate.ts";
import {
  type EmulatorOptions,
  type EmulatorOptionsInput,
  faultSpecOf,
  parseEmulatorOptions,
} from "./options.ts";
import { Routes, sendPayload } from "./router.ts";
import { segments } from "./routes/index.ts";
import { buildStore, isStoreData, restoreStore } from "./seeds/index.ts";
import { authenticator } from "./sessions.ts";
import { DataFileUnreadableError, StateDb } from "./state-db.ts";
import type { Store, StoreOptions } from "./store.ts";

export interface Emulator {
  /** `http://host:port`, without a trailing slash. */
  url: string;
  port: number;
  store: Store;
  faults: Faults;
  options: EmulatorOptions;
  app: FastifyInstance;
  close(): Promise<void>;
}

function loadStore(options: EmulatorOptions): Store {
  const seeded = (storeOptions: StoreOptions) =>
    buildStore(
      options.seed,
      { instance: options.instance, release: options.release, adminPassword: options.adminPassword },
      storeOptions,
    );
  if (!options.dataFile) return seeded({ clock: options.clock });
  const persistence = StateDb.open({
    file: options.dataFile,
    seed: () => seeded({ clock: options.clock }).data,
    fault: options.persistFault,
    accepts: isStoreData,
  });
  if (!isStoreData(persistence.data)) {
    persistence.close();
    throw new DataFileUnreadableError(persistence.file, "not an egp emulator state");
  }
  return restoreStore(persistence.data, { clock: options.clock, persistence });
}

/** The answer to a request whose write could not be made durable. */
function notPersisted(error: unknown): HttpFailure {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOSPC" || code === "EDQUOT") {
    return new HttpFailure(
      507,
      message(
        "InsufficientStorage",
        "The change was not saved: the server's disk is full. Nothing was changed.",
      ),
    );
  }
  return new HttpFailure(
    500,
    message(
      "NotPersisted",
      "The change was not saved: the server could not write its data. Nothing was changed.",
    ),
  );
}

const NOT_FOUND_PAGE = `<!DOCTYPE html>
<html><head><title>404 - File or directory not found.</title></head>
<body><h1>Server Error</h1><h2>404 - File or directory not found.</h2>
<p>The resource you are looking for might have been removed, had its name changed, or is temporarily unavailable.</p>
</body></html>
`;

/** Message keys of fastify's own client errors; any other 4xx of fastify's is `BadRequest`. */
const FASTIFY_KEYS: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: "RequestTooLarge",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "UnsupportedMediaType",
  FST_ERR_BAD_URL: "BadUrl",
  FST_ERR_MAX_PARAM_LENGTH: "UrlTooLong",
};

/** Maps fastify's own errors (bad JSON, too large, wrong media type, bad URL) to envelopes. */
function failureOf(error: FastifyError | HttpFailure): HttpFailure {
  if (error instanceof HttpFailure) return error;
  const status =
    error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
  if (status === 500)
    return new HttpFailure(500, message("InternalError", "The server failed to process the request."));
  const key = FASTIFY_KEYS[error.code] ?? "BadRequest";
  return new HttpFailure(status, message(key, `The request was badly formatted: ${error.message}`));
}

/** The envelope for an error Node's HTTP parser or its request deadline raises before any route. */
function clientFailureOf(error: NodeJS.ErrnoException, requestMs: number): HttpFailure {
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    return new HttpFailure(
      408,
      message("RequestTimeout", `The request did not arrive whole within ${requestMs} ms.`),
    );
  }
  if (error.code === "HPE_HEADER_OVERFLOW") {
    return new HttpFailure(
      431,
      message("HeadersTooLarge", `The request line and headers are larger than ${maxHeaderSize} bytes.`),
    );
  }
  return new HttpFailure(400, message("MalformedRequest", `The request is not valid HTTP (${error.code}).`));
}

/**
 * Answers a client error on the socket itself (there is no request object to answer through):
 * Node would write a bare status line, fastify a JSON of its own; the platform's clients expect an
 * envelope. Nothing is written when a response has started already.
 */
function clientErrorHandler(requestMs: number) {
  return (error: NodeJS.ErrnoException, socket: Duplex): void => {
    if (error.code === "ECONNRESET" || socket.destroyed) return;
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
    if (socket.writable && !inFlight?.headersSent) {
      const failure = clientFailureOf(error, requestMs);
      const body = JSON.stringify(failed(failure.messages));
      socket.write(
        `HTTP/1.1 ${failure.status} ${STATUS_CODES[failure.status]}\r\n` +
          "Content-Type: application/json; charset=utf-8\r\n" +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy(error);
  };
}

/**
 * Node's own request deadline (`requestTimeout`, headers included), checked every quarter of it
 * (at most every second) so that a short test deadline is kept too.
 */
function serverTimeouts(requestMs: number) {
  return {
    requestTimeout: requestMs,
    headersTimeout: Math.min(requestMs, 60_000),
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(requestMs / 4))),
  };
}

export async function buildEmulator(
  input: EmulatorOptionsInput = {},
): Promise<Omit<Emulator, "url" | "port" | "close">> {
  const options = parseEmulatorOptions(input);
  const store = loadStore(options);
  const faults = new Faults(faultSpecOf(options));
  faults.onExpire = () => store.sessions.clear();
  const workDir = options.workDir ?? mkdtempSync(join(tmpdir(), "egp-emulator-"));

  const { requestMs } = options.limits;
  const timeouts = serverTimeouts(requestMs);
  const app = Fastify({
    logger: options.logger,
    bodyLimit: options.bodyLimit,
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true },
    forceCloseConnections: true,
    requestTimeout: requestMs,
    clientErrorHandler: clientErrorHandler(requestMs),
    // A bad percent escape or an over-long parameter, found before routing.
    frameworkErrors: (error, _req, reply) => {
      const failure = failureOf(error);
      return sendPayload((reply as FastifyReply).code(failure.status), failed(failure.messages));
    },
    ...(options.tls
      ? { https: { key: options.tls.key, cert: options.tls.cert, ...timeouts } }
      : { http: timeouts }),
  }) as FastifyInstance;

  // An empty JSON body is no body: documented reads send Content-Type with POST and nothing else.
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser(["application/json", "text/json"], { parseAs: "string" }, (_req, text, done) => {
    const source = String(text);
    if (source.trim() === "") return done(null, undefined);
    try {
      done(null, JSON.parse(source));
    } catch (error) {
      done(
        new HttpFailure(
          400,
          message("MalformedJson", `The request body is not valid JSON: ${(error as Error).message}`),
        ),
      );
    }
  });

  app.addHook("onRequest", async (req, reply) => {
    if (faults.refusesLength(req.headers)) {
      // Answered before the body is read, as a web server that wants the length does.
      return sendPayload(
        reply.code(411),
        failed([message("LengthRequired", "A request body needs a Content-Length header.")]),
      );
    }
    const action = faults.decide(req.method, req.url);
    const delay = faults.latency() + (action && "delayMs" in action ? action.delayMs : 0);
    if (delay > 0) await faults.hold(delay);
    if (!action) return;
    if ("reset" in action && action.after) {
      faults.apply(action, req, reply); // counts it; the socket goes once the answer is ready
      (req as { resetAfter?: boolean }).resetAfter = true;
      return;
    }
    if (!faults.apply(action, req, reply)) return;
    if ("reset" in action) return reply.hijack();
    const status = reply.statusCode;
    const text =
      status === 429 ? "Too many requests; retry later." : "The service is temporarily unavailable.";
    return sendPayload(
      reply,
      failed([message(status === 429 ? "TooManyRequests" : "ServiceUnavailable", text)]),
    );
  });

  // No answer before what it reports is on disk (`--data`); a write the disk refused is undone and
  // answered with an envelope, and so is any request that saw it. Callback hooks, and only with
  // `--data`: an async hook costs every request a promise.
  if (options.dataFile) {
    // Noted just before the handler runs: a request answered before it (404, bad JSON) saw nothing.
    app.addHook("preHandler", (req, _reply, done) => {
      try {
        store.begin();
      } catch (error) {
        return done(notPersisted(error));
      }
      (req as { revision?: number }).revision = store.revision;
      done();
    });
    app.addHook("onSend", (req, reply, payload, done) => {
      const answer = (failure: unknown) => {
        const seen = (req as { revision?: number }).revision;
        if (failure === undefined && (seen === undefined || seen === store.revision)) {
          return done(null, payload);
        }
        const refused = notPersisted(failure);
        app.log.error({ err: failure }, "a change could not be persisted");
        reply.code(refused.status);
        const xml = prefersXml(req.headers.accept);
        reply.type(xml ? "application/xml; charset=utf-8" : "application/json; charset=utf-8");
        done(null, xml ? toXml(failed(refused.messages)) : JSON.stringify(failed(refused.messages)));
      };
      if (store.isSettled()) return answer(undefined);
      store.settled().then(
        () => answer(undefined),
        (error: unknown) => answer(error ?? new Error("not persisted")),
      );
    });
  }

  // A reset after processing: the change is made, the answer is lost (what makes a blind retry unsafe).
  app.addHook("onSend", async (req, _reply, payload) => {
    if ((req as { resetAfter?: boolean }).resetAfter) req.raw.socket.destroy();
    return payload;
  });

  app.setErrorHandler((error: FastifyError | HttpFailure, _req, reply) => {
    const failure = failureOf(error);
    if (failure.status === 500) app.log.error(error);
    reply.code(failure.status).headers(failure.headers);
    return sendPayload(reply, failed(failure.messages));
  });

  app.setNotFoundHandler((req, reply) => {
    reply.code(404);
    // The web server in front of a real instance answers an unknown path with a page of its own.
    if (options.profile === "foreign") return reply.type("text/html; charset=utf-8").send(NOT_FOUND_PAGE);
    return sendPayload(
      reply,
      failed([message("ResourceNotFound", `No resource answers ${req.method} ${req.url.split("?")[0]}.`)]),
    );
  });

  const routes = new Routes();
  const context = { app, options, faults, store, workDir };
  for (const register of segments) await register(routes, context);
  routes.mount(app, store.data.release, store, authenticator(options.scheme), {
    integrations: options.integrations,
  });
  app.addHook("onClose", async () => {
    await store.close();
    if (!options.workDir) rmSync(workDir, { recursive: true, force: true });
  });
  return { app, store, faults, options };
}

/** Starts an emulator; port 0 picks a free port. */
export async function startEmulator(input: EmulatorOptionsInput = {}): Promise<Emulator> {
  const built = await buildEmulator(input);
  const address = await built.app.listen({ port: built.options.port, host: built.options.host });
  const port = Number(new URL(address).port);
  const host = built.options.host.includes(":") ? `[${built.options.host}]` : built.options.host;
  return {
    ...built,
    url: `${built.options.tls ? "https" : "http"}://${host}:${port}`,
    port,
    close: () => built.app.close(),
  };
}

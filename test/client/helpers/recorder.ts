import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";

/*
 * A tiny HTTP server that records every request and answers with a handler: for the calls the
 * emulator does not serve yet, the tests check the request the client builds.
 */

export interface Recorded {
  method: string;
  url: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  json(): unknown;
}

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export type Handler = (request: Recorded) => Answer | undefined;

const LOGIN_ANSWER = {
  Links: [],
  RequestedObject: { SessionToken: "0123456789ABCDEF0123456789ABCDEF" },
  IsSuccessful: true,
  ValidationMessages: [],
};

export function envelope(requested: unknown) {
  return { Links: [], RequestedObject: requested, IsSuccessful: true, ValidationMessages: [] };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, answer: Answer): void {
  const body =
    answer.body === undefined
      ? ""
      : typeof answer.body === "string" || Buffer.isBuffer(answer.body)
        ? answer.body
        : JSON.stringify(answer.body);
  res.writeHead(answer.status ?? 200, { "content-type": "application/json", ...answer.headers });
  res.end(body);
}

/** Login and logout are answered by default; `handler` answers the rest (404 when it returns nothing). */
export async function startRecorder(handler: Handler) {
  const requests: Recorded[] = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const body = await readBody(req);
    const recorded: Recorded = {
      method: req.method ?? "",
      url: req.url ?? "",
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
      json: () => JSON.parse(body.toString("utf8")),
    };
    requests.push(recorded);
    if (url.pathname.endsWith("/core/security/login")) return send(res, { body: LOGIN_ANSWER });
    if (url.pathname.endsWith("/core/security/logout")) return send(res, { body: envelope(true) });
    send(res, handler(recorded) ?? { status: 404, body: { IsSuccessful: false, RequestedObject: {} } });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    /** Requests other than login and logout. */
    calls: () => requests.filter((r) => !/\/core\/security\/log(in|out)$/.test(r.path)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type Recorder = Awaited<ReturnType<typeof startRecorder>>;

/** A recorder for the enclosing describe block; the handler can be swapped per test. */
export function useRecorder(initial: Handler = () => undefined) {
  let recorder: Recorder | undefined;
  let handler = initial;
  beforeAll(async () => {
    recorder = await startRecorder((request) => handler(request));
  });
  afterAll(async () => {
    await recorder?.close();
  });
  return {
    recorder: (): Recorder => {
      if (!recorder) throw new Error("recorder not started");
      return recorder;
    },
    answer(next: Handler) {
      handler = next;
    },
  };
}

import { connect, createServer, type Socket } from "node:net";
import { afterAll, beforeAll } from "vitest";

/*
 * HTTP/1.1 written by hand on a TCP socket, for requests no HTTP client will send: a body that
 * stops halfway, a header past the server's limit, a URL with a broken percent escape.
 */

export interface SocketResponse {
  status: number;
  headers: Record<string, string>;
  /** The body, de-chunked; JSON-parsed into `json` when it parses. */
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read envelopes loosely.
  json: any;
}

function dechunk(body: string): string {
  let out = "";
  let rest = body;
  for (;;) {
    const line = rest.indexOf("\r\n");
    if (line < 0) return out;
    const size = Number.parseInt(rest.slice(0, line), 16);
    if (!Number.isFinite(size) || size === 0) return out;
    out += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 2 + size + 2);
  }
}

function parse(raw: string): SocketResponse {
  const split = raw.indexOf("\r\n\r\n");
  const head = split < 0 ? raw : raw.slice(0, split);
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let text = split < 0 ? "" : raw.slice(split + 4);
  if (headers["transfer-encoding"]?.toLowerCase() === "chunked") text = dechunk(text);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: Number(statusLine.split(" ")[1]), headers, text, json };
}

/**
 * Writes `request` (the whole text: request line, headers, blank line, any body) and reads the
 * answer until the server closes the connection. The socket is never ended from this side, so a
 * request whose body is short stays open, as a stalled client's would.
 */
export function exchange(url: string, request: string | Buffer, waitMs = 10_000): Promise<SocketResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${waitMs} ms: ${Buffer.concat(chunks).toString()}`));
    }, waitMs);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(parse(Buffer.concat(chunks).toString("utf8")));
    });
    socket.write(request);
  });
}

/**
 * A loopback server that accepts connections and never answers, for the test file's lifetime: the
 * host behind a firewall that lets TCP through and nothing else. `url()` is its address.
 */
export function useSilentServer(): { url(): string } {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
  });
  let url = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    url = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return { url: () => url };
}

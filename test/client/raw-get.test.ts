import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, createServer as createTcpServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import {
  isSinkError,
  parseHead,
  type RawGetOptions,
  type RawGetSink,
  rawGet,
} from "../../src/client/raw-get.ts";
import { selfSignedCertificate } from "./helpers/tls.ts";

/*
 * The download fast path's HTTP/1.1 GET against real servers: every framing of a body (length,
 * chunked, end of connection), answers it does not take, a sink that makes it wait, TLS, and each
 * failure with the code the caller classifies.
 */

const BODY = randomBytes(5 * 1024 * 1024 + 3);
const servers: Array<{ close(): unknown; closeAllConnections?: () => void }> = [];
afterAll(() => {
  for (const server of servers) {
    server.closeAllConnections?.();
    server.close();
  }
});

async function listen<T extends Server>(server: T): Promise<string> {
  servers.push(server as unknown as { close(): unknown });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function httpServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  return `http://${await listen(createHttpServer(handler) as unknown as Server)}`;
}

/** A server that answers every connection with `script(socket)`, for framings node:http won't write. */
async function tcpServer(script: (socket: Socket) => void): Promise<string> {
  const server = createTcpServer((socket) => {
    socket.once("data", () => script(socket));
    socket.on("error", () => undefined);
  });
  return `http://${await listen(server)}`;
}

const options = (url: string, more: Partial<RawGetOptions> = {}): RawGetOptions => ({
  url,
  headers: { accept: "application/json", authorization: 'Platform session-id="T"' },
  connectMs: 2000,
  headersMs: 2000,
  bodyMs: 2000,
  ...more,
});

/** A sink that takes 2xx bodies and keeps a copy of every piece. */
function keeping(take = (status: number) => status < 300) {
  const pieces: Buffer[] = [];
  const sink: RawGetSink = {
    onHead: (status) => take(status),
    onData: (piece) => {
      pieces.push(Buffer.from(piece));
      return undefined;
    },
  };
  return { sink, bytes: () => Buffer.concat(pieces), pieces };
}

describe("rawGet", () => {
  it("hands over a Content-Length body whole, and sends the request's headers", async () => {
    let seen: IncomingMessage | undefined;
    const url = await httpServer((req, res) => {
      seen = req;
      res.writeHead(200, { "content-type": "application/zip", "content-length": String(BODY.length) });
      res.end(BODY);
    });
    const { sink, bytes } = keeping();
    const result = await rawGet(options(`${url}/api/core/package/download/7?x=1`), sink);
    expect(result).toMatchObject({ statusCode: 200, taken: true });
    expect(result.headers["content-type"]).toBe("application/zip");
    expect(bytes().equals(BODY)).toBe(true);
    expect(seen?.url).toBe("/api/core/package/download/7?x=1");
    expect(seen?.headers.authorization).toBe('Platform session-id="T"');
    expect(seen?.headers.accept).toBe("application/json");
  });

  it("decodes a chunked body", async () => {
    const url = await httpServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/zip" });
      for (let at = 0; at < BODY.length; at += 300_001) res.write(BODY.subarray(at, at + 300_001));
      res.end();
    });
    const { sink, bytes } = keeping();
    await rawGet(options(url), sink);
    expect(bytes().equals(BODY)).toBe(true);
  });

  it("decodes chunk extensions and trailers, and a head split across reads", async () => {
    const url = await tcpServer(async (socket) => {
      socket.write("HTTP/1.1 200 OK\r\nTransfer-");
      await sleep(20);
      socket.write("Encoding: chunked\r\n\r\n5;name=value\r\nhello\r\n");
      await sleep(20);
      socket.write("6\r\n world\r\n0\r\nX-Checksum: 1\r\n\r\n");
    });
    const { sink, bytes } = keeping();
    const result = await rawGet(options(url), sink);
    expect(result.statusCode).toBe(200);
    expect(bytes().toString()).toBe("hello world");
  });

  it("reads a body framed by the end of the connection, after a 103 answer", async () => {
    const url = await tcpServer((socket) => {
      socket.write(
        "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: application/zip\r\n\r\n",
      );
      socket.end(BODY.subarray(0, 100_000));
    });
    const { sink, bytes } = keeping();
    const result = await rawGet(options(url), sink);
    expect(result.statusCode).toBe(200);
    expect(bytes().equals(BODY.subarray(0, 100_000))).toBe(true);
  });

  it("collects a body the sink does not take, up to the limit", async () => {
    const url = await httpServer((_req, res) => {
      res.writeHead(409, { "content-type": "application/json" });
      res.end(JSON.stringify({ IsSuccessful: false, padding: "x".repeat(5000) }));
    });
    const { sink, pieces } = keeping();
    const whole = await rawGet(options(url), sink);
    expect(whole).toMatchObject({ statusCode: 409, taken: false });
    expect(JSON.parse(whole.collected.toString()).IsSuccessful).toBe(false);
    expect(pieces).toEqual([]);
    const capped = await rawGet(options(url, { collectLimit: 10 }), sink);
    expect(capped.collected.toString()).toBe('{"IsSucces');
  });

  it("an answer without a body ends at its head", async () => {
    const url = await httpServer((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    const { sink } = keeping();
    await expect(rawGet(options(url), sink)).resolves.toMatchObject({ statusCode: 204 });
  });

  it("pauses reading while the sink makes it wait, and loses nothing", async () => {
    const url = await httpServer((_req, res) => {
      res.writeHead(200, { "content-length": String(BODY.length) });
      res.end(BODY);
    });
    const pieces: Buffer[] = [];
    let waits = 0;
    const sink: RawGetSink = {
      onHead: () => true,
      onData: (piece) => {
        pieces.push(Buffer.from(piece));
        if (pieces.length % 3 !== 0) return undefined;
        waits++;
        return sleep(2);
      },
    };
    await rawGet(options(url, { readBytes: 64 * 1024 }), sink);
    expect(waits).toBeGreaterThan(3);
    expect(Buffer.concat(pieces).equals(BODY)).toBe(true);
  });

  it("an error of the sink is passed on as it is, marked as the sink's", async () => {
    const url = await httpServer((_req, res) => {
      res.writeHead(200, { "content-length": String(BODY.length) });
      res.end(BODY);
    });
    const full = Object.assign(new Error("no space left on device"), { code: "ENOSPC" });
    const sink: RawGetSink = {
      onHead: () => true,
      onData: () => {
        throw full;
      },
    };
    const failure = rawGet(options(url), sink);
    await expect(failure).rejects.toBe(full);
    expect(isSinkError(await failure.catch((error: unknown) => error))).toBe(true);
  });

  it("a connection cut short in the body is UND_ERR_SOCKET", async () => {
    const url = await tcpServer((socket) => {
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${BODY.length}\r\n\r\n`);
      socket.end(BODY.subarray(0, 1000));
    });
    const { sink } = keeping();
    const failure = rawGet(options(url), sink);
    await expect(failure).rejects.toMatchObject({ code: "UND_ERR_SOCKET" });
    expect(isSinkError(await failure.catch((error: unknown) => error))).toBe(false);
  });

  it("times out waiting for the head, and for body bytes, with undici's codes", async () => {
    const silent = await tcpServer(() => undefined);
    await expect(rawGet(options(silent, { headersMs: 50 }), keeping().sink)).rejects.toMatchObject({
      code: "UND_ERR_HEADERS_TIMEOUT",
    });
    const stalled = await tcpServer((socket) =>
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"),
    );
    await expect(rawGet(options(stalled, { bodyMs: 50 }), keeping().sink)).rejects.toMatchObject({
      code: "UND_ERR_BODY_TIMEOUT",
    });
  });

  it("a refused connection keeps its own code, and an answer that is not HTTP is refused", async () => {
    const closed = createTcpServer();
    const address = await listen(closed);
    closed.close();
    await expect(rawGet(options(`http://${address}`), keeping().sink)).rejects.toMatchObject({
      code: "ECONNREFUSED",
    });
    const garbage = await tcpServer((socket) => socket.end("SSH-2.0-OpenSSH\r\n\r\n"));
    await expect(rawGet(options(garbage), keeping().sink)).rejects.toMatchObject({
      code: "UND_ERR_INVALID_RESPONSE",
    });
  });

  it("refuses a header value with a line break before connecting", () => {
    expect(() =>
      rawGet({ ...options("http://127.0.0.1:9"), headers: { "x-a": "1\r\nx-b: 2" } }, keeping().sink),
    ).toThrow(/line break/);
  });

  describe("over TLS", () => {
    const dir = mkdtempSync(join(tmpdir(), "egp-raw-get-tls-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    async function httpsServer(): Promise<{ url: string; cert: string }> {
      const { key, cert } = selfSignedCertificate(dir);
      const server = createHttpsServer({ key, cert }, (_req, res) => {
        res.writeHead(200, { "content-length": String(BODY.length) });
        res.end(BODY);
      });
      return { url: `https://${await listen(server as unknown as Server)}`, cert };
    }

    it("verifies the certificate against the CA list, and reads the body whole", async () => {
      const { url, cert } = await httpsServer();
      await expect(rawGet(options(url), keeping().sink)).rejects.toMatchObject({
        code: "DEPTH_ZERO_SELF_SIGNED_CERT",
      });
      const { sink, bytes } = keeping();
      await rawGet(options(url, { tls: { ca: [cert], rejectUnauthorized: true } }), sink);
      expect(bytes().equals(BODY)).toBe(true);
      const insecure = keeping();
      await rawGet(options(url, { tls: { rejectUnauthorized: false } }), insecure.sink);
      expect(insecure.bytes().equals(BODY)).toBe(true);
    });
  });
});

describe("parseHead", () => {
  it("reads the status and joins repeated headers (Set-Cookie stays a list)", () => {
    const { status, headers } = parseHead(
      "HTTP/1.1 200 OK\r\nX-A: 1\r\nx-a: 2\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nContent-Length:  5 ",
    );
    expect(status).toBe(200);
    expect(headers).toEqual({ "x-a": "1, 2", "set-cookie": ["a=1", "b=2"], "content-length": "5" });
  });
});

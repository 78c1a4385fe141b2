import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, type Dispatcher } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ConnectionError,
  createClient,
  PackageTooLargeError,
  PlatformError,
  ResponseShapeError,
  TransferError,
} from "../../src/index.ts";
import { optionsFor, recordingSleep } from "./helpers/client.ts";
import { envelope } from "./helpers/recorder.ts";
import { selfSignedCertificate } from "./helpers/tls.ts";

/*
 * Package download to a path, against a server that sends a multi-megabyte file in many socket
 * chunks and can cut the body short: the file arrives whole, progress ends at the size, a cut body
 * is retried and leaves no `.part`, and a file that cannot be created is a TransferError.
 */

const TOKEN = "0123456789ABCDEF0123456789ABCDEF";
const FILE = randomBytes(3 * 1024 * 1024 + 17);
const work = mkdtempSync(join(tmpdir(), "egp-package-download-"));

const NOT_READY = {
  Reason: "PackageNotReady",
  Description: "Package 8 has not been generated.",
  MessageKey: "PackageNotReady",
  Validations: null,
  ResourcedMessage: "Package 8 has not been generated.",
};

/** How the next download answers: the whole file, or the headers and half of it, then a reset. */
let cutsLeft = 0;
let downloads = 0;

function sendFile(res: ServerResponse, cut: boolean) {
  res.writeHead(200, { "content-type": "application/zip", "content-length": String(FILE.length) });
  if (!cut) return res.end(FILE);
  res.write(FILE.subarray(0, FILE.length / 2), () => res.socket?.destroy());
}

const server = createServer((req, res) => {
  const path = new URL(req.url ?? "/", "http://localhost").pathname;
  req.resume();
  if (path.endsWith("/core/security/login")) {
    res.writeHead(200, { "content-type": "application/json" });
    return res.end(JSON.stringify(envelope({ SessionToken: TOKEN })));
  }
  if (path === "/api/core/package/download/8" || path === "/api/core/package/download/9") {
    // What an instance may answer instead of a file: an error envelope with HTTP 200, or JSON.
    res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
    const failed = { IsSuccessful: false, RequestedObject: {}, ValidationMessages: [NOT_READY] };
    return res.end(JSON.stringify(path.endsWith("/8") ? failed : envelope({ Id: 9 })));
  }
  if (path === "/api/core/package/download/10") {
    // Half the file, then silence: the stall timeout must end it.
    res.writeHead(200, { "content-type": "application/zip", "content-length": String(FILE.length) });
    return res.write(FILE.subarray(0, FILE.length / 2));
  }
  if (path === "/api/core/package/download/11") {
    // Chunked transfer coding, in pieces spread over more than the JSON deadline of the test.
    res.writeHead(200, { "content-type": "application/zip" });
    const pieces = 6;
    const size = Math.ceil(FILE.length / pieces);
    let sent = 0;
    const next = () => {
      const piece = FILE.subarray(sent * size, (sent + 1) * size);
      sent++;
      if (sent === pieces) return res.end(piece);
      res.write(piece);
      setTimeout(next, 60);
    };
    return next();
  }
  if (path === "/api/core/package/download/12") {
    // A body that never ends, with no length announced: only the client's bound stops it.
    res.writeHead(200, { "content-type": "application/zip" });
    const piece = randomBytes(64 * 1024);
    const more = () => {
      while (!res.destroyed && res.write(piece));
      if (!res.destroyed) res.once("drain", more);
    };
    return more();
  }
  if (path === "/api/core/package/download/7") {
    downloads++;
    const cut = cutsLeft > 0;
    if (cut) cutsLeft--;
    return sendFile(res, cut);
  }
  res.writeHead(404, { "content-type": "application/json" });
  res.end(JSON.stringify({ IsSuccessful: false, RequestedObject: {} }));
});
let url = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

describe("packages.download to a path", () => {
  it("writes the whole file and reports progress up to its size", async () => {
    const client = createClient(optionsFor(url));
    const file = join(work, "whole.zip");
    const seen: Array<{ bytes: number; total: number | undefined }> = [];
    const { bytes } = await client.packages.download(7, file, { onProgress: (p) => seen.push(p) });
    await client.close();
    expect(bytes).toBe(FILE.length);
    expect(readFileSync(file).equals(FILE)).toBe(true);
    expect(existsSync(`${file}.part`)).toBe(false);
    expect(seen.at(-1)).toEqual({ bytes: FILE.length, total: FILE.length });
    expect(seen.every((p, i) => i === 0 || p.bytes > (seen[i - 1] as { bytes: number }).bytes)).toBe(true);
  });

  it("stops at limits.packageBytes: an announced size past it is refused at once, and keeps nothing", async () => {
    const client = createClient(optionsFor(url, { limits: { packageBytes: 1024 * 1024 } }));
    const file = join(work, "announced.zip");
    downloads = 0;
    const download = client.packages.download(7, file);
    await expect(download).rejects.toBeInstanceOf(PackageTooLargeError);
    await expect(download).rejects.toThrow(
      `package 7 is larger than limits.packageBytes (1048576 bytes; ${FILE.length} bytes announced)`,
    );
    await client.close();
    expect(downloads).toBe(1);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.part`)).toBe(false);
  });

  it("stops a body that never ends at limits.packageBytes, and keeps nothing", async () => {
    const seen: number[] = [];
    const client = createClient(optionsFor(url, { limits: { packageBytes: 1024 * 1024 } }));
    const file = join(work, "endless.zip");
    const download = client.packages.download(12, file, { onProgress: (p) => seen.push(p.bytes) });
    await expect(download).rejects.toMatchObject({ code: "EGP_PACKAGE_TOO_LARGE" });
    await client.close();
    expect(Math.max(...seen)).toBeLessThanOrEqual(1024 * 1024);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.part`)).toBe(false);
  });

  it("retries a body cut short and ends with the whole file", async () => {
    const sleep = recordingSleep();
    const client = createClient(optionsFor(url, { sleep: sleep.sleep }));
    const file = join(work, "retried.zip");
    cutsLeft = 1;
    downloads = 0;
    const { bytes } = await client.packages.download(7, file);
    await client.close();
    expect(downloads).toBe(2);
    expect(bytes).toBe(FILE.length);
    expect(readFileSync(file).equals(FILE)).toBe(true);
    expect(existsSync(`${file}.part`)).toBe(false);
  });

  it("a body cut short on every try is a ConnectionError, and leaves neither file nor .part", async () => {
    const sleep = recordingSleep();
    const client = createClient(optionsFor(url, { sleep: sleep.sleep, retry: { retries: 1 } }));
    const file = join(work, "never.zip");
    cutsLeft = 2;
    await expect(client.packages.download(7, file)).rejects.toThrow(ConnectionError);
    await client.close();
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.part`)).toBe(false);
  });

  it("an error envelope with HTTP 200, or JSON, instead of a file is refused and leaves no file", async () => {
    for (const dispatcher of [undefined, new KeepingAgent()]) {
      const client = createClient(optionsFor(url, dispatcher ? { dispatcher } : {}));
      const file = join(work, "envelope.zip");
      const refused = client.packages.download(8, file);
      await expect(refused).rejects.toThrow(PlatformError);
      await expect(refused).rejects.toThrow(/has not been generated/);
      await expect(client.packages.download(9, file)).rejects.toThrow(ResponseShapeError);
      await client.close();
      await dispatcher?.close();
      expect(existsSync(file)).toBe(false);
      expect(existsSync(`${file}.part`)).toBe(false);
    }
  });

  it("a body that stalls fails after timeouts.bodyMs with a ConnectionError, and leaves no .part", async () => {
    const client = createClient(optionsFor(url, { timeouts: { bodyMs: 150 }, retry: { retries: 0 } }));
    const file = join(work, "stalled.zip");
    const seen: number[] = [];
    const failure = client.packages.download(10, file, { onProgress: (p) => seen.push(p.bytes) });
    await expect(failure).rejects.toThrow(ConnectionError);
    await client.close();
    expect(seen.at(-1)).toBe(Math.floor(FILE.length / 2));
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.part`)).toBe(false);
  });

  it("a chunked body that takes longer than timeouts.requestMs arrives whole (transfers are exempt)", async () => {
    const client = createClient(optionsFor(url, { timeouts: { requestMs: 100, bodyMs: 5_000 } }));
    const file = join(work, "chunked.zip");
    const seen: Array<{ bytes: number; total: number | undefined }> = [];
    const { bytes } = await client.packages.download(11, file, { onProgress: (p) => seen.push(p) });
    await client.close();
    expect(bytes).toBe(FILE.length);
    expect(readFileSync(file).equals(FILE)).toBe(true);
    expect(seen.at(-1)).toEqual({ bytes: FILE.length, total: undefined });
  });

  it("a file that cannot be created is a TransferError, and the client goes on working", async () => {
    cutsLeft = 0;
    const client = createClient(optionsFor(url));
    const failure = client.packages.download(7, join(work, "no-such-folder", "p.zip"));
    await expect(failure).rejects.toThrow(TransferError);
    await expect(failure).rejects.toThrow(/download to disk failed/);
    const file = join(work, "after.zip");
    await client.packages.download(7, file);
    await client.close();
    expect(readFileSync(file).equals(FILE)).toBe(true);
  });
});

describe("packages.download over TLS", () => {
  const dir = mkdtempSync(join(tmpdir(), "egp-download-tls-"));
  let certFile = "";
  let tlsUrl = "";
  let tlsServer: ReturnType<typeof createHttpsServer>;

  beforeAll(async () => {
    const certificate = selfSignedCertificate(dir);
    certFile = certificate.certFile;
    tlsServer = createHttpsServer({ key: certificate.key, cert: certificate.cert }, (req, res) =>
      server.emit("request", req, res),
    );
    await new Promise<void>((resolve) => tlsServer.listen(0, "127.0.0.1", resolve));
    tlsUrl = `https://127.0.0.1:${(tlsServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    tlsServer.closeAllConnections();
    await new Promise((resolve) => tlsServer.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it("trusts the CA file, and only it, for the download too", async () => {
    cutsLeft = 0;
    const trusting = createClient(optionsFor(tlsUrl, { tls: { caFile: certFile } }));
    const file = join(work, "tls.zip");
    await trusting.packages.download(7, file);
    await trusting.close();
    expect(readFileSync(file).equals(FILE)).toBe(true);

    const insecure = createClient(optionsFor(tlsUrl, { tls: { insecure: true } }));
    await insecure.packages.download(7, join(work, "tls-insecure.zip"));
    await insecure.close();
    expect(readFileSync(join(work, "tls-insecure.zip")).equals(FILE)).toBe(true);
  });
});

/**
 * An Agent that keeps every package body chunk it delivers, as a caching dispatcher does (undici's
 * cache interceptor stores the chunks and serves them again).
 */
class KeepingAgent extends Agent {
  readonly kept: Buffer[] = [];

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    if (!String(options.path).includes("/package/download/")) return super.dispatch(options, handler);
    const kept = this.kept;
    return super.dispatch(options, {
      onRequestStart: (controller, context) => handler.onRequestStart?.(controller, context),
      onResponseStart: (controller, status, headers, message) =>
        handler.onResponseStart?.(controller, status, headers, message),
      onResponseData: (controller, chunk) => {
        kept.push(chunk);
        handler.onResponseData?.(controller, chunk);
      },
      onResponseEnd: (controller, trailers) => handler.onResponseEnd?.(controller, trailers),
      onResponseError: (controller, error) => handler.onResponseError?.(controller, error),
    });
  }
}

describe("packages.download through an injected dispatcher", () => {
  it("never frees the chunks it is given (the dispatcher may keep them, as a cache does)", async () => {
    cutsLeft = 0;
    const agent = new KeepingAgent();
    const client = createClient(optionsFor(url, { dispatcher: agent }));
    const file = join(work, "kept.zip");
    await client.packages.download(7, file);
    await client.close();
    await agent.close();
    expect(readFileSync(file).equals(FILE)).toBe(true);
    expect(agent.kept.length).toBeGreaterThan(1);
    expect(Buffer.concat(agent.kept).equals(FILE)).toBe(true);
  });
});

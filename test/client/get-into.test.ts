import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseClientOptions } from "../../src/client/options.ts";
import { type BodySink, createTransport, isSinkError, type Transport } from "../../src/client/transport.ts";
import { optionsFor } from "./helpers/client.ts";

/*
 * The transport's GET into a sink (package downloads), through undici's dispatch handler API:
 * chunks arrive in order, no chunk arrives while the sink is still busy with the previous one (the
 * parser is paused: memory stays bounded), the sink's own failure comes back marked as such, and an
 * answer the sink refuses comes back with its body.
 */

const FILE = randomBytes(4 * 1024 * 1024 + 5);
const server = createServer((req, res) => {
  req.resume();
  if (req.url === "/halves") {
    // The second half comes later: the socket is empty when the parser resumes after the first.
    const half = FILE.length >> 1;
    res.writeHead(200, { "content-type": "application/zip", "content-length": String(FILE.length) });
    res.write(FILE.subarray(0, half));
    setTimeout(() => res.end(FILE.subarray(half)), 50);
    return;
  }
  if (req.url === "/file") {
    res.writeHead(200, { "content-type": "application/zip", "content-length": String(FILE.length) });
    return res.end(FILE);
  }
  res.writeHead(404, { "content-type": "application/json" });
  res.end(JSON.stringify({ IsSuccessful: false, ValidationMessages: [{ Reason: "Gone" }] }));
});
let url = "";
let transport: Transport;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  transport = createTransport(parseClientOptions(optionsFor(url)));
});
afterAll(async () => {
  await transport.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const get = (path: string) => ({ method: "GET" as const, url: url + path, headers: {} });

describe("transport.getInto", () => {
  it("never hands the sink an empty chunk (undici's parser emits one on a resume with nothing to read)", async () => {
    // A sink whose promise settled in a microtask got an empty chunk, paused, resumed and got
    // another, forever: the event loop never read the socket again.
    const sizes: number[] = [];
    const sink: BodySink = {
      onHead: (status) => status === 200,
      onData(chunk) {
        sizes.push(chunk.length);
        return new Promise<void>((resolve) => setImmediate(resolve));
      },
    };
    const response = await transport.getInto(get("/halves"), sink);
    expect(response.taken).toBe(true);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(FILE.length);
    expect(sizes.filter((size) => size === 0)).toEqual([]);
  });

  it("hands chunks over in order and waits for a busy sink before reading more", async () => {
    const received: Buffer[] = [];
    let busy = false;
    let overlaps = 0;
    const sink: BodySink = {
      onHead: (status) => status === 200,
      onData(chunk) {
        if (busy) overlaps++;
        received.push(Buffer.from(chunk));
        busy = true;
        return new Promise<void>((resolve) =>
          setImmediate(() => {
            busy = false;
            resolve();
          }),
        );
      },
    };
    const response = await transport.getInto(get("/file"), sink);
    expect(response).toMatchObject({ statusCode: 200, taken: true });
    expect(received.length).toBeGreaterThan(4);
    expect(overlaps).toBe(0);
    expect(Buffer.concat(received).equals(FILE)).toBe(true);
  });

  it("passes the sink's own failure on as it is, marked as the sink's", async () => {
    const disk = Object.assign(new Error("no space left"), { code: "ENOSPC" });
    let calls = 0;
    const sink: BodySink = {
      onHead: () => true,
      onData: () => (++calls === 2 ? Promise.reject(disk) : undefined),
    };
    const failure = transport.getInto(get("/file"), sink);
    await expect(failure).rejects.toBe(disk);
    expect(isSinkError(disk)).toBe(true);
    expect(calls).toBe(2);
  });

  it("returns an answer the sink refuses with its body", async () => {
    const sink: BodySink = {
      onHead: (status) => status === 200,
      onData: () => {
        throw new Error("not called for a refused answer");
      },
    };
    const response = await transport.getInto(get("/missing"), sink);
    expect(response.statusCode).toBe(404);
    expect(response.taken).toBe(false);
    expect(JSON.parse(await response.body.text())).toMatchObject({ IsSuccessful: false });
  });
});

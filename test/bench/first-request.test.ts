import { type ChildProcess, spawn } from "node:child_process";
import { Agent, request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { FIRST_REQUEST_IMPORT, FirstRequests } from "../../bench/lib/first-request.ts";

/*
 * The instrument behind plan-scale's start-up line: a server started with FIRST_REQUEST_IMPORT
 * reports when each new connection's first request arrives, and FirstRequests turns that into the
 * time from a spawn to its first request.
 */

const SERVER = [
  "const http = require('node:http');",
  "const server = http.createServer((req, res) => res.end('ok'));",
  "server.listen(0, '127.0.0.1', () => console.log('listening on ' + server.address().port));",
].join("\n");

let server: ChildProcess | undefined;
afterEach(() => {
  server?.kill("SIGTERM");
  server = undefined;
});

async function get(port: number, dispatcher: Agent): Promise<void> {
  const response = await request(`http://127.0.0.1:${port}/`, { dispatcher });
  await response.body.text();
}

describe("first requests", () => {
  it("are reported once per connection by an instrumented server, and other output passes through", async () => {
    const arrivals = new FirstRequests();
    const child = spawn(process.execPath, ["--import", FIRST_REQUEST_IMPORT, "-e", SERVER], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    server = child;
    let out = "";
    const port = await new Promise<number>((resolve) => {
      child.stdout?.on("data", (chunk: Buffer) => {
        out += arrivals.feed(chunk.toString(), child);
        const match = /listening on (\d+)/.exec(out);
        if (match?.[1]) resolve(Number(match[1]));
      });
    });
    const before = Date.now();
    const kept = new Agent({ connections: 1 });
    const other = new Agent({ connections: 1 });
    await get(port, kept);
    await get(port, kept);
    await get(port, other);
    const elapsed = Date.now() - before;
    await Promise.all([kept.close(), other.close()]);
    // The lines of the two connections' first requests, not of the third request.
    await expect.poll(() => arrivals.count).toBe(2);

    const startUp = arrivals.startUpMs(before, elapsed);
    expect(startUp).toBeGreaterThanOrEqual(0);
    expect(startUp).toBeLessThanOrEqual(elapsed);
    expect(arrivals.startUpMs(before + elapsed + 1, 1000)).toBeNaN();
    expect(out).toMatch(/^listening on \d+\n$/);
  });

  it("reads a line split between chunks, each server's apart", () => {
    const arrivals = new FirstRequests();
    expect(arrivals.feed("first-req", "a")).toBe("");
    expect(arrivals.feed("first-request 2000\nhello\n", "b")).toBe("hello\n");
    expect(arrivals.feed("uest 1500\n", "a")).toBe("");
    expect(arrivals.count).toBe(2);
    expect(arrivals.startUpMs(1000, 2000)).toBe(500);
    expect(arrivals.startUpMs(1600, 2000)).toBe(400);
  });
});

import { createServer, type Server, type Socket } from "node:net";
import { afterAll, describe, expect, it, vi } from "vitest";
import { ConnectionError, createClient, type WaitInfo } from "../../src/index.ts";
import { EnvironmentDocument } from "../../src/manifest/environment.ts";
import { optionsFor } from "./helpers/client.ts";

/*
 * No silent waits, and no endless ones: a host that accepts and never answers fails with
 * EGP_TIMEOUT after the headers timeout, a host that trickles its answer after the overall request
 * deadline, and both are reported through onWait while they last. The timeouts are configured
 * small here; the defaults are 30 s and 120 s.
 */

const servers: Server[] = [];
const sockets = new Set<Socket>();

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A loopback server that runs `onSocket` for every connection; returns its http url. */
async function tcpServer(onSocket: (socket: Socket) => void): Promise<string> {
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    onSocket(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return `http://127.0.0.1:${address.port}`;
}

function recordWaits() {
  const waits: WaitInfo[] = [];
  return { waits, onWait: (info: WaitInfo) => waits.push(info) };
}

describe("timeouts and wait notices", () => {
  it("a host that accepts and never answers: EGP_TIMEOUT after the headers timeout, with notices meanwhile", async () => {
    const url = await tcpServer(() => undefined);
    const { waits, onWait } = recordWaits();
    const client = createClient(
      optionsFor(url, {
        timeouts: { headersMs: 300 },
        retry: { retries: 0 },
        onWait,
        waitNoticeMs: 100,
      }),
    );
    const failure = client.users.list();
    await expect(failure).rejects.toThrow(ConnectionError);
    await expect(failure).rejects.toMatchObject({ code: "EGP_TIMEOUT" });
    expect(waits.length).toBeGreaterThanOrEqual(2);
    expect(waits[0]).toMatchObject({ what: "POST /platformapi/core/security/login" });
    expect(waits.map((w) => w.ms)).toEqual([...waits.map((w) => w.ms)].sort((a, b) => a - b));
    const count = waits.length;
    await client.close();
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(waits).toHaveLength(count);
  });

  it("a host that trickles its answer (1 byte per 100 ms): EGP_TIMEOUT at the overall request deadline", async () => {
    const url = await tcpServer((socket) => {
      socket.once("data", () => {
        socket.write("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n");
        const timer = setInterval(() => socket.write(" "), 100);
        socket.on("close", () => clearInterval(timer));
      });
    });
    const { waits, onWait } = recordWaits();
    const client = createClient(
      // Retries on (the login is retried on a timeout): the deadline spans them.
      optionsFor(url, { timeouts: { requestMs: 500 }, onWait, waitNoticeMs: 200 }),
    );
    const started = performance.now();
    const failure = client.users.list();
    await expect(failure).rejects.toMatchObject({ code: "EGP_TIMEOUT" });
    await expect(failure).rejects.toThrow(
      /no complete answer within 0\.5 s \(timeouts\.request of the environment file\)/,
    );
    // The key it names is one an environment file may hold.
    expect(EnvironmentDocument.safeParse({ url: "https://x", timeouts: { request: "1s" } }).success).toBe(
      true,
    );
    // Without the deadline the trickle never ends; the bound is loose so that a busy machine passes.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(waits.length).toBeGreaterThanOrEqual(1);
    expect(client.stats().byRoute["POST /core/security/login"]).toBe(1);
    await client.close();
  });

  it("client.waiting() reports a caller's own wait (a package job) until it ends", async () => {
    vi.useFakeTimers();
    try {
      const { waits, onWait } = recordWaits();
      const client = createClient(optionsFor("http://127.0.0.1:9", { onWait, waitNoticeMs: 50 }));
      const end = client.waiting("the install job");
      await vi.advanceTimersByTimeAsync(180);
      end();
      expect(waits.length).toBe(3);
      for (const wait of waits) expect(wait.what).toBe("the install job");
      await vi.advanceTimersByTimeAsync(500);
      expect(waits).toHaveLength(3);
      await client.close();
    } finally {
      vi.useRealTimers();
    }
  });
});

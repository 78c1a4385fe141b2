import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import {
  ConnectionError,
  createClient,
  ResponseShapeError,
  TransientError,
  type WaitInfo,
} from "../../src/index.ts";
import { ADMIN, optionsFor } from "./helpers/client.ts";

/*
 * A JSON call's answer is collected whole (transport.collect): the edges of that collection against
 * a hand-written server, since the emulator always answers whole. A login answers; every other
 * route is the `answer` of the test.
 */

type Answer = (req: IncomingMessage, res: ServerResponse) => void;

const servers: Server[] = [];
const sockets = new Set<Socket>();

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

const TOKEN = "tok-3f9a1c0e";

async function platform(answer: Answer): Promise<string> {
  const server = createServer((req, res) => {
    if (req.url?.endsWith("/core/security/login")) {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ IsSuccessful: true, RequestedObject: { SessionToken: TOKEN } }));
      return;
    }
    answer(req, res);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return `http://127.0.0.1:${address.port}`;
}

/** Sends the head and the first bytes of `body`, announced whole, then resets the connection. */
function cutShort(status: number, body: string): Answer {
  return (_req, res) => {
    res.writeHead(status, { "content-type": "application/json", "content-length": String(body.length) });
    res.write(body.slice(0, body.length >> 1));
    setTimeout(() => res.socket?.destroy(), 20);
  };
}

describe("JSON answers", () => {
  it("a 200 whose body is cut mid-way is a ConnectionError with the status, retried like one", async () => {
    let calls = 0;
    const body = JSON.stringify([{ IsSuccessful: true, RequestedObject: { Id: 1 } }]).padEnd(4000, " ");
    const url = await platform((req, res) => {
      calls += 1;
      cutShort(200, body)(req, res);
    });
    const client = createClient(optionsFor(url, { retry: { retries: 1, baseDelayMs: 1 } }));
    const failure = client.users.list();
    await expect(failure).rejects.toThrow(ConnectionError);
    await expect(failure).rejects.toMatchObject({ code: "EGP_CONNECTION" });
    expect(calls).toBe(2);
    await client.close();
  });

  it("an error answer cut mid-way still fails with its status", async () => {
    const body = JSON.stringify({ IsSuccessful: false, ValidationMessages: [] }).padEnd(4000, " ");
    const url = await platform(cutShort(500, body));
    const client = createClient(optionsFor(url, { retry: { retries: 0 } }));
    const failure = client.users.list();
    await expect(failure).rejects.toThrow(TransientError);
    await expect(failure).rejects.toMatchObject({ status: 500, code: "EGP_UNAVAILABLE" });
    await client.close();
  });

  it("an answer in many chunks is read whole", async () => {
    const members = Array.from({ length: 300 }, (_, i) => ({
      IsSuccessful: true,
      RequestedObject: { Id: i + 1 },
    }));
    const text = JSON.stringify(members);
    const url = await platform((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      let at = 0;
      const next = () => {
        if (at >= text.length) return void res.end();
        res.write(text.slice(at, at + 1000));
        at += 1000;
        setImmediate(next);
      };
      next();
    });
    const client = createClient(optionsFor(url));
    const ids = await client.users.memberIds(1);
    expect(ids).toEqual(members.map((member) => member.RequestedObject.Id));
    await client.close();
  });

  it("a path is shown as egp wrote it, never cut by a secret's value: errors, their causes and notices", async () => {
    // A filter whose name equals the password: the name is the manifest's, and redacting it would
    // tell whoever chose it that it is the password.
    const filter = { field: "UserName" as const, op: "eq" as const, value: ADMIN.password };
    const shapeUrl = await platform((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify([{ IsSuccessful: true, RequestedObject: { Id: "not a number" } }]));
    });
    const shape = createClient(optionsFor(shapeUrl));
    const bad = shape.users.list({ filter });
    await expect(bad).rejects.toThrow(ResponseShapeError);
    const shapeError = (await bad.catch((error: unknown) => error)) as ResponseShapeError;
    expect(shapeError.path).not.toContain("[redacted]");
    expect(shapeError.path).toContain(encodeURIComponent(ADMIN.password));
    await shape.close();

    // A trickled answer: the deadline aborts it, and its reason (the cause) was scrubbed too.
    const slowUrl = await platform((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const timer = setInterval(() => res.write(" "), 50);
      res.on("close", () => clearInterval(timer));
    });
    const waits: WaitInfo[] = [];
    const slow = createClient(
      optionsFor(slowUrl, {
        timeouts: { requestMs: 300 },
        retry: { retries: 0 },
        onWait: (info) => waits.push(info),
        waitNoticeMs: 100,
      }),
    );
    const late = slow.users.list({ filter });
    await expect(late).rejects.toMatchObject({ code: "EGP_TIMEOUT" });
    const timeout = (await late.catch((error: unknown) => error)) as ConnectionError;
    const cause = timeout.cause as Error;
    expect(cause.message).toContain("no complete answer within 0.3 s");
    const shown = [timeout.message, timeout.path, cause.message, ...waits.map((w) => w.what)].join("\n");
    expect(shown).not.toContain("[redacted]");
    expect(waits.length).toBeGreaterThanOrEqual(1);
    await slow.close();
  });
});

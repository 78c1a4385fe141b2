import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../helpers/packages.ts";
import { type Json, useEmulator } from "../helpers/raw.ts";
import { exchange, type SocketResponse } from "../helpers/socket.ts";

/*
 * Client errors that never reach a route's own checks: broken multipart bodies, a $filter nested
 * past the parser's limit, a bad percent escape in the URL, a header past Node's limit, a body that
 * stops arriving. Each must be a 4xx envelope (a client's fault, which a retry would not mend), and
 * the server must keep answering.
 */

const work = mkdtempSync(join(tmpdir(), "egp-client-errors-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const DEADLINE_MS = 300;
const { emulator, raw } = useEmulator({
  workDir: join(work, "emulator"),
  limits: { requestMs: DEADLINE_MS },
});
let token = "";
beforeAll(async () => {
  token = await raw().token();
});

const host = () => new URL(emulator().url).host;
const authorization = () => `Platform session-id="${token}"`;

/** A whole request on its own connection, closed by the server after the answer. */
function request(method: string, path: string, headers: Record<string, string> = {}, body = ""): string {
  const lines = [
    `${method} ${path} HTTP/1.1`,
    `Host: ${host()}`,
    "Connection: close",
    "Accept: application/json",
  ];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body !== "" || method !== "GET") lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join("\r\n")}\r\n\r\n${body}`;
}

function expectEnvelope(response: SocketResponse, status: number, key: string): Json {
  expect(response.status, response.text).toBe(status);
  expect(response.json?.IsSuccessful, response.text).toBe(false);
  expect(response.json.ValidationMessages[0].MessageKey, response.text).toBe(key);
  expect(response.json.ValidationMessages[0].Description.length).toBeGreaterThan(0);
  return response.json.ValidationMessages[0];
}

async function stillAnswers(): Promise<void> {
  const version = await raw().call("/core/system/applicationinfo/version", { token });
  expect(version.status).toBe(200);
}

const UPLOAD = "/api/core/package/upload";
const uploads = () => readdirSync(join(work, "emulator", "uploads"));

describe("broken multipart uploads are 400 envelopes", () => {
  const upload = (contentType: string, body: string) =>
    exchange(
      emulator().url,
      request("POST", UPLOAD, { Authorization: authorization(), "Content-Type": contentType }, body),
    );
  const part = (boundary: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="p.zip"\r\n` +
    `Content-Type: application/zip\r\n\r\nPK\u0003\u0004\r\n--${boundary}--\r\n`;

  it("no boundary in Content-Type", async () => {
    expectEnvelope(await upload("multipart/form-data", part("b1")), 400, "MalformedMultipart");
    expect(uploads()).toEqual([]);
    await stillAnswers();
  });

  it("a boundary that does not match the body's", async () => {
    expectEnvelope(
      await upload("multipart/form-data; boundary=other", part("b1")),
      400,
      "MalformedMultipart",
    );
    expect(uploads()).toEqual([]);
  });

  it("a body cut inside a part header", async () => {
    const cut = '--b1\r\nContent-Disposition: form-data; name="file"; filena';
    expectEnvelope(await upload("multipart/form-data; boundary=b1", cut), 400, "MalformedMultipart");
    expect(uploads()).toEqual([]);
    await stillAnswers();
  });
});

describe("queries and URLs", () => {
  it("$filter with 3,000 nested parentheses is a 400 envelope naming the depth limit", async () => {
    const filter = `${"(".repeat(3000)}UserName eq 'x'${")".repeat(3000)}`;
    const response = await raw().read(`/core/system/user?$filter=${encodeURIComponent(filter)}`, token);
    expect(response.status, response.text.slice(0, 300)).toBe(400);
    expect(response.body.ValidationMessages[0].MessageKey).toBe("InvalidQuery");
    expect(response.body.ValidationMessages[0].Description).toMatch(/deeper than 100/);
  });

  it("a task query (in the body) with 3,000 nested 'not' or 20,000 terms is a 400 envelope", async () => {
    const nots = await raw().read("/core/system/task", token, {
      body: { Value: `$filter=${"not ".repeat(3000)}IsComplete` },
    });
    expect(nots.status, nots.text.slice(0, 300)).toBe(400);
    expect(nots.body.ValidationMessages[0].MessageKey).toBe("InvalidQuery");
    const terms = Array.from({ length: 20_000 }, () => "IsComplete eq true").join(" and ");
    const long = await raw().read("/core/system/task", token, { body: { Value: `$filter=${terms}` } });
    expect(long.status, long.text.slice(0, 300)).toBe(400);
    expect(long.body.ValidationMessages[0].Description).toMatch(/more than 1000 comparisons/);
  });

  it("a URL with a bad percent escape is a 400 envelope", async () => {
    const response = await exchange(
      emulator().url,
      request("GET", "/platformapi/core/system/user/%E0%A4%A", { Authorization: authorization() }),
    );
    expectEnvelope(response, 400, "BadUrl");
    await stillAnswers();
  });

  it("a request that is not HTTP, or a chunked body with a bad chunk size, is a 400 envelope", async () => {
    expectEnvelope(await exchange(emulator().url, "HELLO THERE\r\n\r\n"), 400, "MalformedRequest");
    const chunked = request("POST", "/platformapi/core/system/user", {
      Authorization: authorization(),
      "Content-Type": "application/json",
      "Transfer-Encoding": "chunked",
    }).replace(/Content-Length: 0\r\n/, "");
    expectEnvelope(
      await exchange(emulator().url, `${chunked}zz\r\n{}\r\n0\r\n\r\n`),
      400,
      "MalformedRequest",
    );
    await stillAnswers();
  });

  it("a path parameter past the router's length limit is a 414 envelope", async () => {
    const response = await raw().read(`/core/system/user/${"9".repeat(200)}`, token);
    expect(response.status).toBe(414);
    expect(response.body.ValidationMessages[0].MessageKey).toBe("UrlTooLong");
  });

  it("an unknown route is a 404 envelope", async () => {
    const response = await exchange(emulator().url, request("GET", "/platformapi/core/no/such/thing"));
    expectEnvelope(response, 404, "ResourceNotFound");
  });

  it("a header past Node's limit is a 431 envelope", async () => {
    const response = await exchange(
      emulator().url,
      request("GET", "/platformapi/core/system/user", { "X-Padding": "x".repeat(32 * 1024) }),
    );
    expectEnvelope(response, 431, "HeadersTooLarge");
    await stillAnswers();
  });
});

describe("request deadline", () => {
  it("a JSON body that stops arriving is answered 408 with an envelope, and the server goes on", async () => {
    const body = JSON.stringify({ User: { FirstName: "Stal", LastName: "Led" }, Password: "Strong#Pass1" });
    const head = request(
      "POST",
      "/platformapi/core/system/user",
      { Authorization: authorization(), "Content-Type": "application/json" },
      body,
    );
    const started = Date.now();
    const response = await exchange(emulator().url, head.slice(0, head.length - 20));
    expect(Date.now() - started).toBeGreaterThanOrEqual(DEADLINE_MS - 20);
    const message = expectEnvelope(response, 408, "RequestTimeout");
    expect(message.Description).toContain(`${DEADLINE_MS} ms`);
    expect(response.headers.connection).toBe("close");
    const users = await raw().read("/core/system/user", token);
    expect(users.body.map((u: Json) => u.RequestedObject.LastName)).not.toContain("Led");
  });

  it("a package upload that stalls mid-file is answered 408 and leaves no file behind", async () => {
    const boundary = "b2";
    const head =
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="p.zip"\r\n` +
      "Content-Type: application/zip\r\n\r\n";
    const full = request(
      "POST",
      UPLOAD,
      { Authorization: authorization(), "Content-Type": `multipart/form-data; boundary=${boundary}` },
      `${head}${"z".repeat(100_000)}\r\n--${boundary}--\r\n`,
    );
    const response = await exchange(emulator().url, full.slice(0, full.length - 50_000));
    expectEnvelope(response, 408, "RequestTimeout");
    // The part's file is removed once the closed connection has failed the upload's stream.
    await until(async () => (uploads().length === 0 ? true : undefined), "the upload's file to go", 5_000);
    await stillAnswers();
  });

  it("headers that stop arriving get 408 with an envelope too", async () => {
    const response = await exchange(
      emulator().url,
      `GET /platformapi/core/system/user HTTP/1.1\r\nHost: ${host()}\r\nX-Slow: 1`,
    );
    expectEnvelope(response, 408, "RequestTimeout");
  });
});

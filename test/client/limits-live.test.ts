import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type RequestInfo } from "../../src/index.ts";
import { optionsFor } from "./helpers/client.ts";
import { envelope } from "./helpers/recorder.ts";

/* The concurrency limit holds on the wire, and every exchange reaches the onRequest hook. */

describe("limits on the wire", () => {
  let active = 0;
  let peak = 0;
  const server = createServer((req, res) => {
    active += 1;
    peak = Math.max(peak, active);
    req.resume();
    req.on("end", () => {
      const body = req.url?.endsWith("/login")
        ? envelope({ SessionToken: "0123456789ABCDEF0123456789ABCDEF" })
        : envelope({ Version: "6.14.0" });
      setTimeout(() => {
        active -= 1;
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
      }, 15);
    });
  });
  let url = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("never has more requests in flight than the concurrency limit", async () => {
    const seen: RequestInfo[] = [];
    const client = createClient(
      optionsFor(url, {
        limits: { concurrency: 2, requestsPerSecond: 0 },
        onRequest: (info) => seen.push(info),
      }),
    );
    await Promise.all(Array.from({ length: 8 }, () => client.metadata.version()));
    expect(peak).toBe(2);
    expect(seen).toHaveLength(9);
    expect(seen.filter((info) => info.route === "/core/system/applicationinfo/version")).toHaveLength(8);
    expect(seen[0]).toMatchObject({
      method: "POST",
      path: "/platformapi/core/security/login",
      attempt: 1,
      status: 200,
    });
    await client.close();
  });
});

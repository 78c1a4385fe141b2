import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { notify } from "./notify.ts";

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) server.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A receiver that takes the request and never answers. */
async function silentReceiver(): Promise<string> {
  const server = createServer(() => {});
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

describe("notify", () => {
  it("says in words that a receiver did not answer in time, not an error's number", async () => {
    const url = await silentReceiver();
    const said: string[] = [];
    await notify(
      { notify: [{ url, events: ["applied"] }] },
      {
        event: "applied",
        environment: "prod",
        summary: "0 added, 0 changed, 0 destroyed, 0 promoted; verified",
      },
      { say: (line) => said.push(line), timeoutMs: 200, tries: 2, sleep: async () => {}, variables: {} },
    );
    expect(said).toEqual([
      "Notification notify[0] failed after 2 tries (timed out after 0.2 s); the result above stands.",
    ]);
  });
});

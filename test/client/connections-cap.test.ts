import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../src/client/client.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";

/*
 * A client opens at most `limits.concurrency` connections to its instance: each one more costs a
 * remote instance its handshakes and sits idle, since no more requests are ever in flight.
 */

const PASSWORD = "Conns#Test2026";
let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD });
});

afterAll(async () => {
  await emulator?.close();
});

describe("connections per instance", () => {
  it.each([1, 3])("are at most the concurrency (%i), however many reads are queued", async (concurrency) => {
    let opened = 0;
    const count = () => {
      opened += 1;
    };
    emulator.app.server.on("connection", count);
    // Every read held a little, so that many are queued while each slot is busy.
    emulator.faults.configure({ latency: [5, 15] });
    const client = createClient({
      url: emulator.url,
      instance: "Default",
      username: "sysadmin",
      password: PASSWORD,
      limits: { concurrency, requestsPerSecond: 0 },
    });
    try {
      await Promise.all(Array.from({ length: 40 }, () => client.securityParameters.list()));
      expect(opened).toBeGreaterThan(0);
      expect(opened).toBeLessThanOrEqual(concurrency);
    } finally {
      await client.close();
      emulator.app.server.off("connection", count);
      emulator.faults.configure({ latency: null });
    }
  });
});

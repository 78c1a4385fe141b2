import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connections } from "../../src/cli/connect.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { DEFAULT_LIMITS, DEFAULT_WAITS, type EnvironmentConfig, Secret } from "../../src/manifest/index.ts";

/*
 * The end of a run: every instance is logged out at once, so that the run's last round trip is
 * paid once, not once per instance. Each emulator holds its logout; both must arrive while the
 * first is held.
 */

const PASSWORD = "Logout#Test2026";
const HOLD_MS = 600;
const emulators: Emulator[] = [];

function config(name: string, url: string): EnvironmentConfig {
  return {
    name,
    file: `environments/${name}.yaml`,
    source: { file: `environments/${name}.yaml`, line: 1, column: 1 },
    endpoint: { kind: "http", url },
    instance: "Default",
    auth: { username: "sysadmin", domain: "", password: new Secret(PASSWORD), scheme: "Platform" },
    tls: { insecure: false },
    roles: {},
    groups: {},
    domains: {},
    limits: { ...DEFAULT_LIMITS, requestsPerSecond: 0 },
    timeouts: { connectMs: 5_000, headersMs: 10_000, requestMs: 10_000, bodyMs: 10_000 },
    waits: DEFAULT_WAITS,
  };
}

beforeAll(async () => {
  for (let i = 0; i < 3; i++)
    emulators.push(await startEmulator({ port: 0, seed: "empty", adminPassword: PASSWORD }));
});

afterAll(async () => {
  await Promise.all(emulators.map((emulator) => emulator.close()));
});

describe("closing a run's connections", () => {
  it("logs every instance out at once", async () => {
    const arrivals: number[] = [];
    for (const emulator of emulators) {
      emulator.app.server.on("request", (request) => {
        if (request.url?.endsWith("/logout")) arrivals.push(performance.now());
      });
      emulator.faults.script({ path: "/logout", action: { delayMs: HOLD_MS } });
    }
    const open = connections({ logger: pino({ level: "silent" }) });
    for (const [i, emulator] of emulators.entries()) {
      const { client } = await open.open(config(`env${i}`, emulator.url));
      await client.securityParameters.list();
    }
    await open.closeAll();
    expect(arrivals).toHaveLength(emulators.length);
    // One after the other, each would arrive once the previous hold had ended.
    expect(Math.max(...arrivals) - Math.min(...arrivals)).toBeLessThan(HOLD_MS);
  });

  it("starts the logouts when asked to close soon, and closing all waits for them", async () => {
    const [emulator] = emulators as [Emulator];
    let arrived = false;
    emulator.app.server.on("request", (request) => {
      if (request.url?.endsWith("/logout")) arrived = true;
    });
    emulator.faults.script({ path: "/logout", action: { delayMs: HOLD_MS } });
    const open = connections({ logger: pino({ level: "silent" }) });
    const { client } = await open.open(config("soon", emulator.url));
    await client.securityParameters.list();
    open.closeSoon();
    await expect.poll(() => arrived, { timeout: HOLD_MS }).toBe(true);
    const started = performance.now();
    await open.closeAll();
    // The held logout was already under way: closing all waited for it, and sent no second one.
    expect(performance.now() - started).toBeGreaterThan(HOLD_MS / 3);
    await expect(client.securityParameters.list()).rejects.toThrow();
  });
});

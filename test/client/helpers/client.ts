import pino from "pino";
import { afterAll, beforeAll } from "vitest";
import { type Emulator, type EmulatorOptionsInput, startEmulator } from "../../../src/emulator/index.ts";
import { type ClientOptionsInput, createClient, type PlatformClient } from "../../../src/index.ts";

/*
 * The client against a real emulator over HTTP on port 0. Clients made here are closed with the
 * emulator. Tests that count requests or sleep pass their own options.
 */

export const ADMIN = { username: "sysadmin", password: "Password1!", instance: "Default" } as const;

export function silentLogger() {
  return pino({ level: "silent" });
}

export function optionsFor(url: string, overrides: Partial<ClientOptionsInput> = {}): ClientOptionsInput {
  return {
    url,
    instance: ADMIN.instance,
    username: ADMIN.username,
    password: ADMIN.password,
    limits: { requestsPerSecond: 0 },
    logger: silentLogger(),
    ...overrides,
  };
}

export function useClientEmulator(options: EmulatorOptionsInput = {}) {
  let emulator: Emulator | undefined;
  const clients: PlatformClient[] = [];
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, ...options });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await emulator?.close();
  });
  const current = (): Emulator => {
    if (!emulator) throw new Error("emulator not started");
    return emulator;
  };
  return {
    emulator: current,
    client(overrides: Partial<ClientOptionsInput> = {}): PlatformClient {
      const client = createClient(optionsFor(current().url, overrides));
      clients.push(client);
      return client;
    },
  };
}

/** A sleep that records the delays it was asked for instead of waiting. */
export function recordingSleep() {
  const delays: number[] = [];
  return {
    delays,
    sleep: async (ms: number) => {
      delays.push(ms);
    },
  };
}

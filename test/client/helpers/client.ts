import pino from "pino";
import { afterAll, beforeAll } from "vitest";
import { type Emulator, type EmulatorOptionsInput, startEmulator } from "../../../src/emulator/index.ts";
import { type ClientOptionsInput, createClient, type PlatformClient } from "../../../src/index.ts";
import type { PackageCreateRequest } from "../../../src/wire/index.ts";
import { until } from "../../helpers/packages.ts";

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

/** Creates a package of `objects` through the client and waits until it is generated: its id. */
export async function generatedPackage(
  client: PlatformClient,
  request: Omit<PackageCreateRequest, "Name">,
): Promise<number> {
  const id = await client.packages.create({ Name: "Findings release", ...request });
  await client.packages.generate(id);
  await until(
    async () => ((await client.packages.get(id)).Status === "Ready" ? true : undefined),
    "generation",
    6_000,
  );
  return id;
}

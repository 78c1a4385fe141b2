// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${…} here is environment-file text, not a template.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlatformClient } from "../../src/client/client.ts";
import { httpConnections } from "../../src/compose/connections.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { type EnvironmentConfig, planEnvironment } from "../../src/index.ts";
import { ManifestCache } from "../../src/manifest/index.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * A plan whose environment's state was kept by the last run: the state is read in slices, and the
 * package reads its Package documents name start before it is read. Against two emulators over
 * HTTP: the plan must be the one made without any cache, with the same requests, none twice.
 */

const PASSWORD = "ReadAhead#Test2026";
let dev: Emulator;
let prod: Emulator;
let dir: string;
let stateDir: string;

const environment = (url: string, extra = "") =>
  `url: ${url}\ninstance: Default\nauth: { username: sysadmin, password: '\${EGP_READ_AHEAD_P}' }\n${extra}`;

beforeAll(async () => {
  process.env.EGP_READ_AHEAD_P = PASSWORD;
  [dev, prod] = await Promise.all([
    startEmulator({ port: 0, seed: "demo-dev", adminPassword: PASSWORD }),
    startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD }),
  ]);
  dir = await testdir({
    "environments/dev.yaml": environment(dev.url),
    "environments/prod.yaml": environment(prod.url, "packagesFrom: dev\n"),
    "manifests/packages.yaml":
      "kind: Package\nname: GRC Core\nobjects:\n  - application: Risk Register\n  - application: Controls\n",
    "manifests/parameters.yaml":
      "kind: SecurityParameter\nname: General User Parameter\nminPasswordLength: 14\n",
  });
  stateDir = await mkdtemp(join(tmpdir(), "egp-read-ahead-"));
});

afterAll(async () => {
  await Promise.all([dev?.close(), prod?.close()]);
  if (stateDir) await rm(stateDir, { recursive: true, force: true });
});

/** One run of egp: its own connections and cache; the requests each instance was sent. */
async function plan(options: { cache?: boolean; targets?: string[] } = {}) {
  const connections = httpConnections();
  const clients = new Map<string, PlatformClient>();
  const open = async (config: EnvironmentConfig) => {
    const client = await connections.open(config);
    clients.set(config.name, client);
    return client;
  };
  const cache = options.cache ? new ManifestCache(stateDir) : undefined;
  try {
    const result = await planEnvironment({
      dir,
      env: "prod",
      open,
      ...(cache ? { cache } : {}),
      ...(options.targets ? { options: { targets: options.targets } } : {}),
      now: () => new Date("2026-11-27T00:00:00Z"),
    });
    const requests = Object.fromEntries(
      [...clients].map(([name, client]) => [name, client.stats().requests]),
    );
    return { result, requests, cache };
  } finally {
    await connections.close();
  }
}

describe("a plan from the environment's kept state", () => {
  it("reads the state ahead and the packages from it, and plans what a plan without a cache plans", async () => {
    const reference = await plan();
    expect(reference.result.plan.summary.promote).toBeGreaterThan(0);
    const cold = await plan({ cache: true });
    expect(cold.cache?.stats).toMatchObject({ states: 0, statesWritten: 1 });
    const warm = await plan({ cache: true });
    expect(warm.cache?.stats).toMatchObject({ states: 1, hits: 0, misses: 0 });
    expect(warm.result.plan).toEqual(reference.result.plan);
    // The live state, but for a last login (the plan's own): its digest leaves volatile fields out.
    expect(warm.result.live.digest).toBe(reference.result.live.digest);
    expect(warm.result.live.packageSource).toEqual(reference.result.live.packageSource);
    expect(warm.result.live.packages).toEqual(reference.result.live.packages);
    // The package reads made ahead were the ones used: no instance was asked twice.
    expect(warm.requests).toEqual(reference.requests);
  });

  it("a plan narrowed by --target reads no packages ahead, and still plans as without a cache", async () => {
    await plan({ cache: true });
    const targets = ["SecurityParameter/General User Parameter"];
    const reference = await plan({ targets });
    const warm = await plan({ cache: true, targets });
    expect(warm.cache?.stats.states).toBe(1);
    expect(warm.result.plan).toEqual(reference.result.plan);
    expect(warm.requests).toEqual(reference.requests);
  });
});

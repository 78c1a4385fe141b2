// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${…} here is environment-file text, not a template.

import { join } from "node:path";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connections } from "../../src/cli/connect.ts";
import { clientsOf } from "../../src/cli/plan-environment.ts";
import type { PlatformClient } from "../../src/client/client.ts";
import { httpConnections } from "../../src/compose/connections.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { type EnvironmentConfig, planEnvironment, sharedReads } from "../../src/index.ts";
import { readStatus } from "../../src/release/status.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * A fleet: several environments promote from one source. Within one run of read-only commands
 * (status, plans of several environments) the source's catalogue, version and trees are read once,
 * whatever the number of environments. Against emulators over HTTP, counted by route.
 */

const PASSWORD = "Fleet#Test2026";
const TARGETS = ["prod-a", "prod-b", "prod-c"];
let dev: Emulator;
let prod: Emulator;
let dir: string;

const environment = (url: string, extra = "") =>
  `url: ${url}\ninstance: Default\nauth: { username: sysadmin, password: '\${EGP_FLEET_P}' }\nlimits: { requestsPerSecond: 0 }\n${extra}`;

beforeAll(async () => {
  process.env.EGP_FLEET_P = PASSWORD;
  [dev, prod] = await Promise.all([
    startEmulator({ port: 0, seed: "demo-dev", adminPassword: PASSWORD }),
    startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD }),
  ]);
  dir = await testdir({
    "environments/dev.yaml": environment(dev.url),
    ...Object.fromEntries(
      TARGETS.map((name) => [`environments/${name}.yaml`, environment(prod.url, "packagesFrom: dev\n")]),
    ),
    "manifests/packages.yaml":
      "kind: Package\nname: GRC Core\nobjects:\n  - application: Risk Register\n  - application: Controls\n",
  });
});

afterAll(async () => {
  await Promise.all([dev?.close(), prod?.close()]);
});

/** Plans of `envs` in one run, as a library caller makes them; dev's requests by route. */
async function planFleet(envs: readonly string[]): Promise<Record<string, number>> {
  const http = httpConnections();
  const clients = new Map<string, PlatformClient>();
  const open = async (config: EnvironmentConfig) => {
    const client = await http.open(config);
    clients.set(config.name, client);
    return client;
  };
  const shared = sharedReads();
  try {
    const plans = await Promise.all(envs.map((env) => planEnvironment({ dir, env, open, shared })));
    for (const { plan } of plans) expect(plan.summary.promote).toBeGreaterThan(0);
    return clients.get("dev")?.stats().byRoute ?? {};
  } finally {
    await http.close();
  }
}

/** `egp status` of `envs` as the CLI gathers it; the requests each environment's client made. */
async function status(envs: readonly string[]): Promise<Record<string, number>> {
  const logged: Array<{ msg: string; env: string; requests: number }> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logged.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const logger = pino({ level: "debug" }, sink);
  const open = connections({ logger });
  try {
    const report = await readStatus({
      dir,
      open: clientsOf(open),
      stateDir: join(dir, ".egp"),
      environments: envs,
      parallel: 4,
      logger,
    });
    expect(report.summary.unreadable).toBe(0);
  } finally {
    await open.closeAll();
  }
  const counted = logged.filter((line) => line.msg === "requests made");
  return Object.fromEntries(counted.map((line) => [line.env, line.requests]));
}

describe("a source shared by a fleet", () => {
  it("plans of three environments read the source's catalogue, version and trees once", async () => {
    const one = await planFleet(["prod-a"]);
    const three = await planFleet(TARGETS);
    expect(one["POST /core/system/application"]).toBe(1);
    expect(one["POST /core/system/fielddefinition/level/{}"]).toBeGreaterThan(0);
    expect(three).toEqual(one);
  });

  it("status of the source and three environments sends the source what status of one does", async () => {
    const one = await status(["dev", "prod-a"]);
    const all = await status(["dev", ...TARGETS]);
    expect(one.dev).toBeGreaterThan(0);
    expect(all.dev).toBe(one.dev);
    expect(Object.keys(all).sort()).toEqual(["dev", ...TARGETS].sort());
  });
});

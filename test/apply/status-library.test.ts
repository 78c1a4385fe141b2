// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${P} here is environment-file text, not a template.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import * as api from "../../src/index.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * `egp status` from the library (src/index.ts): the caller reads each environment (its plan, its
 * version) and the status stage turns the reads into the report and its exit code, as the CLI does.
 * demo-prod's General User Parameter has no minimum length of 14: one drifted SecurityParameter.
 */

const PASSWORD = "Status#Library2026";
let prod: Emulator;
let dir: string;
const connections = api.httpConnections();

beforeAll(async () => {
  process.env.EGP_STATUS_LIBRARY_P = PASSWORD;
  prod = await startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD });
  dir = await testdir({
    "environments/prod.yaml": `url: ${prod.url}\ninstance: Default\nauth: { username: sysadmin, password: '\${EGP_STATUS_LIBRARY_P}' }\n`,
    "manifests/parameters.yaml":
      "kind: SecurityParameter\nname: General User Parameter\nminPasswordLength: 14\n",
  });
});

afterAll(async () => {
  await connections.close();
  await prod?.close();
});

describe("the status stage, from the library", () => {
  it("builds the rows, sorted, with drift per kind and the exit code, from an environment read over HTTP", async () => {
    const { plan, desired } = await api.planEnvironment({ dir, env: "prod", open: connections.open });
    const client = await connections.open(desired.environment);
    const { Version } = await client.metadata.version();
    const drift = api.driftByKind(plan);
    expect(drift).toEqual({ SecurityParameter: 1 });
    const prodRow: api.EnvironmentStatus = {
      environment: "prod",
      lastInstall: null,
      pending: null,
      reachable: true,
      version: Version,
      drift,
      driftTotal: 1,
    };
    const report: api.StatusReport = api.statusReport([prodRow], "2026-11-26T00:00:00.000Z");
    expect(report.summary).toEqual({ matching: 0, drifted: 1, unreadable: 0 });
    expect(api.statusExitCode(report)).toBe(2);

    const down: api.UnreadableStatus = {
      environment: "dev",
      lastInstall: null,
      pending: null,
      reachable: false,
      reason: "EGP_CONNECTION connection refused",
    };
    const both = api.statusReport([prodRow, down], "2026-11-26T00:00:00.000Z");
    expect(both.environments.map((row) => row.environment)).toEqual(["dev", "prod"]);
    expect(api.statusExitCode(both)).toBe(1);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type PlatformClient } from "../../src/client/client.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { compareInstances } from "../../src/plan/index.ts";
import { readForComparison } from "../../src/state/compare-read.ts";

/*
 * `egp compare`'s reads over HTTP, demo-dev (A) against demo-prod (B): every application and
 * sub-form of both, matched by GUID, details only where they differ, and not one write.
 */

const PASSWORD = "Compare#Test2026";
const CONTROLS = demoGuid("controls");
const RISKS = demoGuid("risks");
const FINDINGS = demoGuid("findings");
const COMMENTS = demoGuid("comments");

let dev: Emulator;
let prod: Emulator;
let devClient: PlatformClient;
let prodClient: PlatformClient;

function client(url: string): PlatformClient {
  const limits = { concurrency: 4, requestsPerSecond: 0 };
  return createClient({ url, instance: "Default", username: "sysadmin", password: PASSWORD, limits });
}

/** What an instance holds, but for what a login stamps (sessions, last login dates, counters). */
function configuration(emulator: Emulator): string {
  const { users: _users, counters: _counters, ...rest } = emulator.store.data;
  return JSON.stringify(rest);
}

beforeAll(async () => {
  [dev, prod] = await Promise.all([
    startEmulator({ port: 0, seed: "demo-dev", adminPassword: PASSWORD }),
    startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD }),
  ]);
  [devClient, prodClient] = [client(dev.url), client(prod.url)];
});

afterAll(async () => {
  await Promise.all([devClient?.close(), prodClient?.close()]);
  await Promise.all([dev?.close(), prod?.close()]);
});

describe("readForComparison", () => {
  it("reads every application and sub-form of both, keeps details where they differ, writes nothing", async () => {
    const before = [configuration(dev), configuration(prod)];
    const sides = await readForComparison(devClient, prodClient);
    expect([configuration(dev), configuration(prod)]).toEqual(before);
    expect(sides.unknown).toEqual([]);
    const names = (side: typeof sides.from) =>
      Object.values(side.objects)
        .map((o) => o.name)
        .sort();
    expect(names(sides.from)).toEqual([
      "Comments",
      "Controls",
      "Findings",
      "Policies",
      "Risk Register",
      "Third Parties",
    ]);
    expect(names(sides.to)).toEqual(["Comments", "Controls", "Policies", "Risk Register", "Third Parties"]);
    const detailed = (side: typeof sides.from) =>
      Object.keys(side.objects)
        .filter((guid) => side.objects[guid]?.details)
        .sort();
    expect(detailed(sides.from)).toEqual([CONTROLS, FINDINGS, RISKS].sort());
    expect(detailed(sides.to)).toEqual([CONTROLS, RISKS].sort());
    // One catalogue read per side; no object is read twice.
    const stats = devClient.stats().byRoute;
    expect(stats["POST /core/system/application"]).toBe(1);
    expect(stats["POST /core/system/fielddefinition/level/{}"]).toBe(7);
  });

  it("groups the objects as matched, mismatched, missing in target and in source", async () => {
    const sides = await readForComparison(prodClient, devClient);
    const comparison = compareInstances({
      from: { environment: "prod", ...sides.from },
      to: { environment: "dev", ...sides.to },
      createdAt: "2026-01-01T00:00:00Z",
    });
    expect(comparison.objects.map((o) => `${o.status} ${o.name}`)).toEqual([
      "mismatched Controls",
      "mismatched Risk Register",
      "missingInSource Findings",
      "matched Comments",
      "matched Policies",
      "matched Third Parties",
    ]);
    // Read the other way round, dev's Last Tested is on the target only: a critical difference.
    const controls = comparison.objects.find((o) => o.guid === CONTROLS);
    expect(controls?.parts.find((p) => p.name === "Last Tested")).toMatchObject({
      status: "onlyOnTarget",
      severity: "critical",
    });
    expect(comparison.objects.find((o) => o.guid === FINDINGS)?.parts).toEqual([]);
    expect(comparison.summary).toMatchObject({ objects: 6, matched: 3, mismatched: 2, missingInSource: 1 });
  });

  it("reads only the objects named (any case), and says which names neither instance has", async () => {
    const sides = await readForComparison(devClient, prodClient, ["comments", "Findings", "Nope"]);
    expect(Object.keys(sides.from.objects).sort()).toEqual([COMMENTS, FINDINGS].sort());
    expect(Object.keys(sides.to.objects)).toEqual([COMMENTS]);
    expect(sides.unknown).toEqual(["Nope"]);
  });
});

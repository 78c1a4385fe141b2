// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type PlatformClient } from "../../src/client/client.ts";
import type { ClientStats } from "../../src/client/stats.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { loadEnvironment } from "../../src/manifest/index.ts";
import { planChanges } from "../../src/plan/index.ts";
import { type LiveState, readLiveState } from "../../src/state/index.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * The number of requests a plan's reads make must not grow with the number of users (LESSONS 7, 8):
 * the same manifests against 1,000 and 10,000 users, with the same applications, cost the same.
 */

const PASSWORD = "Count#Test2026";
const APPS = "apps=6";

const MANIFESTS = [
  "kind: SecurityParameter",
  "name: General User Parameter",
  "minPasswordLength: 12",
  "---",
  "kind: User",
  "userName: user000001",
  "firstName: First000001",
  "lastName: Last000001",
  "groups: [Everyone]",
  "contacts: [{ type: email, subType: business, value: user000001@example.com, default: true }]",
  "---",
  "kind: User",
  "userName: newcomer",
  "firstName: New",
  "lastName: Comer",
  "---",
  "kind: Package",
  "name: Scale",
  "objects:",
  "  - application: Scale Application 0002",
  "  - application: Scale Application 0003",
  "",
].join("\n");

const GROUPS_MAP = "groups: { Everyone: 1, Administrators: 2 }";

function environment(url: string, extra: string[] = [GROUPS_MAP]): string {
  return [
    `url: ${url}`,
    "instance: Default",
    "auth: { username: sysadmin, password: '${EGP_TEST_PASSWORD}' }",
    ...extra,
    "",
  ].join("\n");
}

interface Counted {
  live: LiveState;
  target: ClientStats;
  source: ClientStats;
  changes: number;
  /** The target's requests when the environment has no groups map (names resolved by reading). */
  listed: ClientStats;
}

const emulators: Emulator[] = [];
let source: Emulator;

async function start(seed: string): Promise<Emulator> {
  const emulator = await startEmulator({ port: 0, seed, adminPassword: PASSWORD });
  emulators.push(emulator);
  return emulator;
}

function client(url: string): PlatformClient {
  return createClient({
    url,
    instance: "Default",
    username: "sysadmin",
    password: PASSWORD,
    limits: { concurrency: 4, requestsPerSecond: 0 },
  });
}

/** Reads what a plan of MANIFESTS needs from a target with `users` users, and counts the requests. */
async function countFor(users: number): Promise<Counted> {
  const target = await start(`scale:users=${users},${APPS}`);
  const dir = await testdir({
    "environments/source.yaml": environment(source.url),
    "environments/target.yaml": environment(target.url, [GROUPS_MAP, "packagesFrom: source"]),
    "environments/listed.yaml": environment(target.url, ["packagesFrom: source"]),
    "manifests/all.yaml": MANIFESTS,
  });
  const { state: desired } = await loadEnvironment(dir, "target", {
    variables: { EGP_TEST_PASSWORD: PASSWORD },
  });
  const { state: listedDesired } = await loadEnvironment(dir, "listed", {
    variables: { EGP_TEST_PASSWORD: PASSWORD },
  });
  const [targetClient, sourceClient] = [client(target.url), client(source.url)];
  const [listedClient, listedSource] = [client(target.url), client(source.url)];
  try {
    const live = await readLiveState(targetClient, desired, { source: sourceClient });
    const plan = planChanges(desired, live, { createdAt: "2026-01-01T00:00:00Z" });
    const listedLive = await readLiveState(listedClient, listedDesired, { source: listedSource });
    planChanges(listedDesired, listedLive, { createdAt: "2026-01-01T00:00:00Z" });
    return {
      live,
      target: targetClient.stats(),
      source: sourceClient.stats(),
      changes: plan.changes.length,
      listed: listedClient.stats(),
    };
  } finally {
    await Promise.all([targetClient, sourceClient, listedClient, listedSource].map((c) => c.close()));
  }
}

describe("requests of a plan's reads", () => {
  let small: Counted;
  let large: Counted;

  beforeAll(async () => {
    source = await start(`scale:${APPS}`);
    small = await countFor(1_000);
    large = await countFor(10_000);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(emulators.map((e) => e.close()));
  });

  it("read every user of each instance", () => {
    expect(small.live.users).toHaveLength(1_001);
    expect(large.live.users).toHaveLength(10_001);
    // user000001 is in Everyone; the plan creates newcomer and updates the parameter.
    expect(large.live.users.find((u) => u.user.UserName === "user000001")?.groups).toEqual([1]);
    expect(large.changes).toBe(small.changes);
  });

  it("are the same for 1,000 and 10,000 users, route by route", () => {
    expect(large.target.requests).toBe(small.target.requests);
    expect(large.target.byRoute).toEqual(small.target.byRoute);
    expect(large.source.requests).toBe(small.source.requests);
  });

  it("are one list read per kind, one per mapped group, and the trees of the named objects", () => {
    // Two applications named: Scale Application 0002 (one level) and 0003 (two levels).
    const tree = {
      "POST /core/system/application": 1,
      // Questionnaires are listed apart from applications; the catalogue holds both.
      "POST /core/system/questionnaire": 1,
      "POST /core/system/level": 1,
      "POST /core/system/fielddefinition/level/{}": 3,
      "POST /core/system/levellayout/level/{}": 3,
      "POST /core/system/eventrule/level/{}": 3,
      "POST /core/system/eventaction/eventrule/{}": 3,
      // The platform version, for the preflight of a package onto an older platform.
      "POST /core/system/applicationinfo/version": 1,
    };
    expect(large.target.byRoute).toEqual({
      "POST /core/security/login": 1,
      "POST /core/system/securityparameter": 1,
      "POST /core/system/user": 1,
      "GET /core/system/usercontact": 1,
      "POST /core/system/user/group/{}": 2,
      ...tree,
    });
    expect(large.source.byRoute).toEqual({ "POST /core/security/login": 1, ...tree });
    expect(large.target.retries).toBe(0);
  });

  it("without a groups map: one read of the instance's groups and one per group named, whatever the users", () => {
    expect(large.listed.byRoute).toEqual(small.listed.byRoute);
    expect(large.listed.byRoute).toMatchObject({
      "POST /core/system/group": 1,
      "POST /core/system/user/group/{}": 1,
      "POST /core/system/user": 1,
    });
  });
});

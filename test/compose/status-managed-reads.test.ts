// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${…} here is environment-file text, not a template.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connections } from "../../src/cli/connect.ts";
import { clientsOf } from "../../src/cli/plan-environment.ts";
import { httpConnections } from "../../src/compose/connections.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { planEnvironment } from "../../src/index.ts";
import { viewFindings } from "../../src/release/drift-findings.ts";
import { readStatus } from "../../src/release/status.ts";
import { forwardingProxy } from "../helpers/forwarding-proxy.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * `egp status` counts drift and lists no unmanaged object, so it reads only the users its manifests
 * manage: the users list and each group's members with an OData `UserName eq` filter, instead of
 * every user of the instance once per environment. Its drift is the full plan's. Against the
 * emulator over HTTP, through a proxy that records each read of users.
 */

const PASSWORD = "Status#Reads2026";
let emulator: Emulator;
let proxy: Awaited<ReturnType<typeof recordingProxy>>;

/** In front of the emulator: records user reads; can refuse `$filter` on users-by-group (400). */
async function recordingProxy(target: string) {
  const state = { seen: [] as string[], refuseGroupFilter: false };
  const proxy = await forwardingProxy(target, (url, _req, res) => {
    if (!/\/core\/system\/user(\/group\/\d+)?$/.test(url.pathname)) return false;
    const query = url.search ? ` ${decodeURIComponent(url.search)}` : "";
    state.seen.push(`${url.pathname.replace(/^\/\w+/, "")}${query}`);
    if (!(state.refuseGroupFilter && url.pathname.includes("/group/") && url.searchParams.has("$filter")))
      return false;
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify({ Message: "The query specified in the URI is not valid." }));
    return true;
  });
  return Object.assign(state, proxy);
}

beforeAll(async () => {
  process.env.EGP_STATUS_READS_P = PASSWORD;
  emulator = await startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD });
  proxy = await recordingProxy(emulator.url);
});

afterAll(async () => {
  await proxy?.close();
  await emulator?.close();
});

const USERS = [
  "kind: User\nuserName: DPATEL\nfirstName: Dev\nlastName: Patel\ntitle: Senior Analyst\ngroups: [Everyone, Auditors]\n",
  "kind: User\nuserName: newperson\nfirstName: New\nlastName: Person\ngroups: [Everyone]\n",
].join("---\n");

async function repository(extra: Record<string, string> = {}): Promise<string> {
  return testdir({
    "environments/prod.yaml": `url: ${proxy.url}\ninstance: Default\nauth: { username: sysadmin, password: '\${EGP_STATUS_READS_P}' }\nlimits: { requestsPerSecond: 0 }\n`,
    "manifests/users.yaml": USERS,
    ...extra,
  });
}

async function statusOf(dir: string) {
  const logger = pino({ level: "silent" });
  const open = connections({ logger });
  try {
    const report = await readStatus({
      dir,
      open: clientsOf(open),
      stateDir: join(dir, ".egp"),
      environments: ["prod"],
      parallel: 1,
      logger,
    });
    const [row] = report.environments;
    if (!row?.reachable) throw new Error(`prod unreadable: ${row && "reason" in row ? row.reason : ""}`);
    return row.drift;
  } finally {
    await open.closeAll();
  }
}

/** The findings of a full plan of the same repository, by kind: every user read. */
async function planDrift(dir: string) {
  const http = httpConnections();
  try {
    const view = await planEnvironment({ dir, env: "prod", open: (config) => http.open(config) });
    const counts: Record<string, number> = {};
    for (const finding of viewFindings(view)) counts[finding.kind] = (counts[finding.kind] ?? 0) + 1;
    return counts;
  } finally {
    await http.close();
  }
}

describe("status reads only the users it manages", () => {
  it("asks for the managed users by name, in the list and in each group's members, and counts the plan's findings", async () => {
    const dir = await repository();
    proxy.seen.length = 0;
    const drift = await statusOf(dir);
    const reads = [...proxy.seen];
    expect(reads.length).toBeGreaterThanOrEqual(3); // the list, Everyone's and Auditors' members
    for (const read of reads)
      expect(read).toMatch(/\$filter=.*UserName eq 'DPATEL'.*UserName eq 'newperson'/);
    expect(drift).toEqual(await planDrift(dir));
    // DPATEL's title and groups (a finding each), and newperson, missing.
    expect(drift.User).toBe(3);
  });

  it("reads every user when a PrunePolicy names users", async () => {
    const dir = await repository({ "manifests/prune.yaml": "kind: PrunePolicy\nusers: deactivate\n" });
    proxy.seen.length = 0;
    const drift = await statusOf(dir);
    expect(proxy.seen.filter((read) => read.includes("$filter"))).toEqual([]);
    expect(drift).toEqual(await planDrift(dir));
  });

  it("reads a group's members whole from an instance that refuses the filter there", async () => {
    const dir = await repository();
    proxy.refuseGroupFilter = true;
    try {
      proxy.seen.length = 0;
      const drift = await statusOf(dir);
      const groupReads = proxy.seen.filter((read) => read.includes("/group/"));
      expect(groupReads.some((read) => !read.includes("$filter"))).toBe(true);
      expect(drift).toEqual(await planDrift(dir));
    } finally {
      proxy.refuseGroupFilter = false;
    }
  });

  it("reads every user when the managed names would not fit in a query", async () => {
    const many = Array.from(
      { length: 120 },
      (_, i) => `kind: User\nuserName: someone.with.a.long.name.${i}\nfirstName: Some\nlastName: One${i}\n`,
    ).join("---\n");
    const dir = await repository();
    await writeFile(join(dir, "manifests/many.yaml"), many);
    proxy.seen.length = 0;
    const drift = await statusOf(dir);
    expect(proxy.seen.filter((read) => read.startsWith("/core/system/user ")).length).toBe(0);
    expect(proxy.seen.filter((read) => read === "/core/system/user").length).toBe(1);
    expect(drift).toEqual(await planDrift(dir));
  });
});

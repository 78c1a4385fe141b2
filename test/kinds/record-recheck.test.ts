// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executePlan, Journal } from "../../src/apply/index.ts";
import { createClient, type PlatformClient } from "../../src/client/client.ts";
import { BUILT_IN_KINDS } from "../../src/compose/kinds.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { loadEnvironment } from "../../src/manifest/index.ts";
import { type Plan, planChanges } from "../../src/plan/index.ts";
import { readLiveState } from "../../src/state/index.ts";
import { thirdParties } from "../helpers/records-prod.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * Record writes the instance answers with 403, the record changed directly between plan and apply,
 * over HTTP against demo-prod (Third Parties: Acme Hosting, content id 1001, Tier 1). Where the
 * record read again by its key holds the planned values the step is done; where it is gone the
 * step fails with EGP_PLAN_STALE and no create takes the update's place.
 */

const PASSWORD = "Records#Recheck2026";
const logger = pino({ level: "silent" });

let prod: Emulator;
let client: PlatformClient;
let stateDir: string;
let levelId: number;
let fieldIds: { name: number; tier: number };
let tierIds: Record<string, number>;

const document = (records: readonly string[]) => thirdParties(records);

async function load(records: readonly string[]) {
  const dir = await testdir({
    "environments/prod.yaml": [
      `url: ${prod.url}`,
      "instance: Default",
      "auth: { username: sysadmin, password: '${P}' }",
      "",
    ].join("\n"),
    "manifests/third-parties.yaml": document(records),
  });
  return (await loadEnvironment(dir, "prod", { variables: { P: PASSWORD } })).state;
}

async function planAndDesired(records: readonly string[]) {
  const desired = await load(records);
  const live = await readLiveState(client, desired, {});
  const plan = planChanges(desired, live, { createdAt: new Date().toISOString() }, BUILT_IN_KINDS);
  return { desired, plan };
}

const execute = (plan: Plan, desired: Awaited<ReturnType<typeof load>>) =>
  executePlan({
    plan,
    desired,
    clients: new Map([["prod", client]]),
    journal: Journal.open(stateDir, plan, { steps: BUILT_IN_KINDS.steps }),
    stateDir,
    concurrency: 1,
    logger,
    ops: BUILT_IN_KINDS.ops,
  });

const tierOf = (name: string) => ({
  [String(fieldIds.tier)]: {
    Type: 4,
    Value: { ValuesListIds: [tierIds[name] ?? 0], OtherText: null },
    FieldId: fieldIds.tier,
  },
});

async function vendors(): Promise<Array<{ name: unknown; tier: unknown }>> {
  const records = await client.contentApi.allRecords("Third_Party");
  return records.map((record) => ({ name: record.Vendor_Name, tier: record.Tier }));
}

beforeAll(async () => {
  prod = await startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD });
  client = createClient({ url: prod.url, instance: "Default", username: "sysadmin", password: PASSWORD });
  stateDir = await mkdtemp(join(tmpdir(), "egp-record-recheck-"));
  const app = (await client.metadata.applications()).find((a) => a.Name === "Third Parties");
  const [level] = await client.metadata.levelsByModule(app?.Id ?? 0);
  levelId = level?.Id ?? 0;
  const fields = await client.metadata.fieldDefinitions(levelId);
  const name = fields.find((field) => field.Name === "Vendor Name");
  const tier = fields.find((field) => field.Name === "Tier");
  fieldIds = { name: name?.Id ?? 0, tier: tier?.Id ?? 0 };
  tierIds = Object.fromEntries((tier?.ValuesListValues ?? []).map((value) => [value.Name, value.Id]));
});

afterAll(async () => {
  await client?.close();
  await prod?.close();
  if (stateDir) await rm(stateDir, { recursive: true, force: true });
});

describe("a record write answered with 403", () => {
  it("a create refused because someone made the record with the planned values meanwhile is done, and makes no second one", async () => {
    const { desired, plan } = await planAndDesired(["  - Vendor Name: Contoso Cloud", "    Tier: Tier 3"]);
    expect(plan.steps.map((step) => step.op)).toEqual(["record.create"]);
    const made = await client.content.create({
      LevelId: levelId,
      FieldContents: {
        [String(fieldIds.name)]: { Type: 1, Value: "Contoso Cloud", FieldId: fieldIds.name },
        ...tierOf("Tier 3"),
      },
    });
    prod.faults.script({ method: "POST", path: /\/core\/content$/i, action: { status: 403 } });
    const result = await execute(plan, desired);
    expect(result.failed).toEqual([]);
    expect((await vendors()).filter((vendor) => vendor.name === "Contoso Cloud")).toEqual([
      { name: "Contoso Cloud", tier: ["Tier 3"] },
    ]);
    expect(made).toBeGreaterThan(1001);
  });

  it("an update refused because the record already holds the planned values is done", async () => {
    const { desired, plan } = await planAndDesired(["  - Vendor Name: Acme Hosting", "    Tier: Tier 2"]);
    expect(plan.steps.map((step) => step.op)).toEqual(["record.update"]);
    await client.content.update({ Content: { Id: 1001, LevelId: levelId, FieldContents: tierOf("Tier 2") } });
    prod.faults.script({ method: "PUT", path: /\/core\/content$/i, action: { status: 403 } });
    const result = await execute(plan, desired);
    expect(result.failed).toEqual([]);
    expect(prod.faults.stats.byKind["403"]).toBe(2);
  });

  it("an update of a record deleted meanwhile fails with EGP_PLAN_STALE and creates nothing in its place", async () => {
    const { desired, plan } = await planAndDesired(["  - Vendor Name: Acme Hosting", "    Tier: Tier 3"]);
    expect(plan.steps.map((step) => step.op)).toEqual(["record.update"]);
    await client.content.remove(1001);
    const result = await execute(plan, desired);
    expect(result.failed.map((failure) => [failure.code, failure.error])).toEqual([
      [
        "EGP_PLAN_STALE",
        'the record "Acme Hosting" of "Third Parties": the instance answered the update with 403 (the record does not exist, or this account may not change it), and no record has its key now; the plan no longer matches the instance, and nothing it did not show was written. Plan again.',
      ],
    ]);
    expect((await vendors()).map((vendor) => vendor.name)).not.toContain("Acme Hosting");
  });
});

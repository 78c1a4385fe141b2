// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyPlan, executePlan, Journal, PlanMismatchError, registerOps } from "../../src/apply/index.ts";
import { createClient, type PlatformClient } from "../../src/client/client.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { exportManifests, registerExporter } from "../../src/export/index.ts";
import { loadEnvironment, ManifestError, registerKind, schemaFiles } from "../../src/manifest/index.ts";
import {
  type Plan,
  PlanError,
  PlanFileError,
  planChanges,
  readPlanFile,
  registerKindSteps,
  registerPlanner,
  writePlanFile,
} from "../../src/plan/index.ts";
import { readLiveState, registerLiveKind } from "../../src/state/index.ts";
import { testdir } from "../helpers/testdir.ts";
import { groupMembershipExporter } from "./group-membership/export.ts";
import { groupMembershipKind } from "./group-membership/manifest.ts";
import { groupMembershipOps } from "./group-membership/ops.ts";
import { groupMembershipPlanner } from "./group-membership/plan.ts";
import { groupMembershipLive } from "./group-membership/state.ts";
import { groupMembershipSteps } from "./group-membership/steps.ts";

/*
 * A kind is a typed contract, so that a new one costs no edit elsewhere: `GroupMembership` exists only in this test, as
 * new files (./group-membership/) plus one registry line per stage below, and goes through
 * validate → plan → saved plan file → apply against the emulator over HTTP, then export.
 * demo-prod's groups: 1 Everyone, 2 Administrators, 3 Auditors, 4 Risk Owners; anguyen and
 * dpatel are not Auditors, cmendes is.
 */

registerKind(groupMembershipKind);
registerLiveKind(groupMembershipLive);
registerKindSteps(groupMembershipSteps);
registerPlanner(groupMembershipPlanner);
registerOps(groupMembershipOps);
registerExporter(groupMembershipExporter);

const PASSWORD = "Kinds#Test2026";
const logger = pino({ level: "silent" });
let prod: Emulator;
let client: PlatformClient;
let stateDir: string;

const repository = (memberships: string) =>
  testdir({
    "environments/prod.yaml": [
      `url: ${prod.url}`,
      "instance: Default",
      "auth: { username: sysadmin, password: '${P}' }",
      "",
    ].join("\n"),
    "manifests/memberships.yaml": memberships,
  });

const load = async (dir: string) =>
  (await loadEnvironment(dir, "prod", { variables: { P: PASSWORD } })).state;

async function planFor(dir: string): Promise<Plan> {
  const desired = await load(dir);
  return planChanges(desired, await readLiveState(client, desired), { createdAt: new Date().toISOString() });
}

/** A fresh plan of the repository, as `egp plan` and the re-plan of `egp apply FILE` make it. */
async function replanOf(dir: string) {
  const desired = await load(dir);
  const plan = planChanges(desired, await readLiveState(client, desired), {
    createdAt: new Date().toISOString(),
  });
  return { plan, desired };
}

const AUDITORS = "kind: GroupMembership\ngroup: Auditors\nmembers: [anguyen, dpatel, cmendes]\n";

beforeAll(async () => {
  prod = await startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD });
  client = createClient({
    url: prod.url,
    instance: "Default",
    username: "sysadmin",
    password: PASSWORD,
    limits: { concurrency: 4, requestsPerSecond: 0 },
  });
  stateDir = await mkdtemp(join(tmpdir(), "egp-kind-state-"));
});

afterAll(async () => {
  await client?.close();
  await prod?.close();
  if (stateDir) await rm(stateDir, { recursive: true, force: true });
});

describe("a kind registered from a test", () => {
  it("validates: its schema checks documents at file:line:col, and its JSON Schema is generated", async () => {
    const dir = await repository("kind: GroupMembership\ngroup: Auditors\nmembers: [anguyen]\ncolour: red\n");
    await expect(load(dir)).rejects.toThrow(ManifestError);
    await expect(load(dir)).rejects.toThrow(/manifests\/memberships\.yaml:4:1 .*colour/);
    const schema = schemaFiles().find((file) => file.name === "manifest.schema.json");
    expect(schema?.text).toContain('"GroupMembership"');
    const desired = await load(await repository(AUDITORS));
    expect(desired.groupMemberships?.map((doc) => doc.members)).toEqual([["anguyen", "dpatel", "cmendes"]]);
  });

  it("is refused at plan time where the instance lacks what it names", async () => {
    const dir = await repository("kind: GroupMembership\ngroup: Auditors\nmembers: [nobody]\n");
    await expect(planFor(dir)).rejects.toThrow(PlanError);
    await expect(planFor(dir)).rejects.toThrow(/memberships\.yaml:2:8 members: no user "nobody" on prod/);
  });

  it("plans, saves and reloads its plan, applies it against the emulator, and then plans nothing", async () => {
    const dir = await repository(AUDITORS);
    const plan = await planFor(dir);
    expect(plan.changes.map((change) => [change.kind, change.key, change.action])).toEqual([
      ["GroupMembership", "Auditors", "update"],
    ]);
    const [step] = plan.steps;
    expect(step?.op).toBe("groupMembership.add");
    // cmendes is already an Auditor: only the two others are added.
    const input = groupMembershipSteps.ops["groupMembership.add"].parse(step?.input);
    expect(input.users.map((user) => user.name)).toEqual(["anguyen", "dpatel"]);

    // The saved plan is checked against the kind's op schema on load.
    const text = writePlanFile(plan);
    const saved = readPlanFile(text, "memberships.plan.json");
    expect(saved).toEqual(plan);
    const damaged = text.replace(/"groupId": \d+/, '"groupId": "three"');
    expect(() => readPlanFile(damaged, "memberships.plan.json")).toThrow(PlanFileError);
    expect(() => readPlanFile(damaged, "memberships.plan.json")).toThrow(
      /input\.groupId: step GroupMembership\/Auditors#add \(groupMembership\.add\)/,
    );

    const desired = await load(dir);
    const result = await executePlan({
      plan: saved,
      desired,
      clients: new Map([["prod", client]]),
      journal: Journal.open(stateDir, saved),
      stateDir,
      concurrency: 2,
      logger,
    });
    expect(result.failed).toEqual([]);
    expect(result.done).toEqual([step?.id]);

    const users = await client.users.list();
    const idOf = (name: string) => users.find((user) => user.UserName === name)?.Id;
    expect(await client.users.memberIds(3)).toEqual(
      expect.arrayContaining([idOf("anguyen"), idOf("dpatel"), idOf("cmendes")]),
    );
    expect((await planFor(dir)).changes).toEqual([]);
  });

  it("exports what the instance has, as documents its own schema accepts", async () => {
    const desired = await load(await repository(AUDITORS));
    const live = await readLiveState(client, desired, { scope: "all" });
    const { files } = exportManifests({ environment: desired.environment, live });
    const file = files.find((f) => f.kind === "GroupMembership");
    expect(file?.file).toBe("group-memberships.yaml");
    // After the apply above: the two added members are there.
    expect(file?.text).toContain("group: Auditors\nmembers: [anguyen, cmendes, dpatel, ejohansson]\n");
    const roundTrip = await load(await repository(file?.text ?? ""));
    expect(roundTrip.groupMemberships?.length).toBe(4);
  });

  it("applies its plan from a saved file as `egp apply FILE` does: the saved plan is checked against the kind's own actions", async () => {
    const savedPlanOf = async (dir: string) => {
      const file = join(dir, "memberships.plan.json");
      await writeFile(file, writePlanFile((await replanOf(dir)).plan));
      return { file, saved: readPlanFile(await readFile(file, "utf8"), file) };
    };
    const apply = (dir: string, file: string, plan: Plan) =>
      applyPlan({
        env: "prod",
        stateDir,
        replan: () => replanOf(dir),
        open: async () => client,
        saved: plan,
        savedFile: file,
      });

    // demo-prod's Risk Owners (4): dpatel is not one.
    const owners = await repository("kind: GroupMembership\ngroup: Risk Owners\nmembers: [dpatel]\n");
    const { file, saved } = await savedPlanOf(owners);
    expect(saved.steps.map((step) => step.op)).toEqual(["groupMembership.add"]);
    const outcome = await apply(owners, file, saved);
    expect(outcome).toMatchObject({ result: "complete", converged: true });
    const dpatel = (await client.users.list()).find((user) => user.UserName === "dpatel");
    expect(await client.users.memberIds(4)).toContain(dpatel?.Id);

    // The same kind of step under an action the kind does not declare for it: refused as edited.
    const admins = await repository("kind: GroupMembership\ngroup: Administrators\nmembers: [dpatel]\n");
    const other = await savedPlanOf(admins);
    for (const change of other.saved.changes) change.action = "create";
    await expect(apply(admins, other.file, other.saved)).rejects.toThrow(PlanMismatchError);
    await expect(apply(admins, other.file, other.saved)).rejects.toThrow(
      /does not hold together as egp makes plans \(step GroupMembership\/Administrators#add runs groupMembership\.add, which a create of a GroupMembership never runs; change GroupMembership\/Administrators\.action: "create" in the saved plan, "update" in a fresh plan\); it was changed after it was made/,
    );
    expect(await client.users.memberIds(2)).not.toContain(dpatel?.Id);
  });
});

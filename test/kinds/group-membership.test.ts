// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyPlan, executePlan, Journal, PlanMismatchError } from "../../src/apply/index.ts";
import { createClient, type PlatformClient } from "../../src/client/client.ts";
import { builtInKinds, createKinds } from "../../src/compose/kinds.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { exportManifests } from "../../src/export/index.ts";
import { loadEnvironment, ManifestError, schemaFiles } from "../../src/manifest/index.ts";
import { documentsOf } from "../../src/manifest/kinds/kind.ts";
import {
  type Plan,
  PlanError,
  PlanFileError,
  planChanges,
  readPlanFile,
  writePlanFile,
} from "../../src/plan/index.ts";
import { readLiveState } from "../../src/state/index.ts";
import { testdir } from "../helpers/testdir.ts";
import { groupMembershipKind } from "./group-membership/kind.ts";
import { groupMembershipDocument } from "./group-membership/manifest.ts";
import { groupMembershipSteps } from "./group-membership/steps.ts";

/*
 * A kind is one value, so that a new one costs no edit elsewhere: `GroupMembership` exists only in
 * this test, as new files (./group-membership/, one part per stage) bundled in one `Kind`, and one
 * kinds value made with it (`createKinds`) goes through validate → plan → saved plan file → apply
 * against the emulator over HTTP, then export, then a PrunePolicy that clears what no document
 * names. demo-prod's groups: 1 Everyone, 2 Administrators, 3 Auditors, 4 Risk Owners; anguyen and
 * dpatel are not Auditors, cmendes is.
 */

const kinds = createKinds([...builtInKinds, groupMembershipKind]);

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
  (await loadEnvironment(dir, "prod", { variables: { P: PASSWORD }, kinds: kinds.documents })).state;

const memberships = (desired: object) => documentsOf(groupMembershipDocument, desired);

/** A fresh plan of the repository, as `egp plan` and the re-plan of `egp apply FILE` make it. */
async function replanOf(dir: string) {
  const desired = await load(dir);
  const live = await readLiveState(client, desired, { kinds: kinds.live });
  const plan = planChanges(desired, live, { createdAt: new Date().toISOString() }, kinds);
  return { plan, desired };
}

const planFor = async (dir: string): Promise<Plan> => (await replanOf(dir)).plan;

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

describe("a kind from a test, in one kinds value", () => {
  it("validates: its schema checks documents at file:line:col, and its JSON Schema is generated", async () => {
    const dir = await repository("kind: GroupMembership\ngroup: Auditors\nmembers: [anguyen]\ncolour: red\n");
    await expect(load(dir)).rejects.toThrow(ManifestError);
    await expect(load(dir)).rejects.toThrow(/manifests\/memberships\.yaml:4:1 .*colour/);
    const schema = schemaFiles(kinds.documents).find((file) => file.name === "manifest.schema.json");
    expect(schema?.text).toContain('"GroupMembership"');
    const desired = await load(await repository(AUDITORS));
    expect(memberships(desired).map((doc) => doc.members)).toEqual([["anguyen", "dpatel", "cmendes"]]);
  });

  it("is unknown to a load with egp's own kinds, and to their JSON Schema", async () => {
    const dir = await repository(AUDITORS);
    const builtIn = loadEnvironment(dir, "prod", { variables: { P: PASSWORD } });
    await expect(builtIn).rejects.toThrow(
      /memberships\.yaml:1:7 documents\[0\]\.kind: expected one of SecurityParameter, User, Package, Record, PrunePolicy$/,
    );
    const schema = schemaFiles().find((file) => file.name === "manifest.schema.json");
    expect(schema?.text).not.toContain('"GroupMembership"');
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
    const saved = readPlanFile(text, "memberships.plan.json", kinds.steps);
    expect(saved).toEqual(plan);
    const damaged = text.replace(/"groupId": \d+/, '"groupId": "three"');
    expect(() => readPlanFile(damaged, "memberships.plan.json", kinds.steps)).toThrow(PlanFileError);
    expect(() => readPlanFile(damaged, "memberships.plan.json", kinds.steps)).toThrow(
      /input\.groupId: step GroupMembership\/Auditors#add \(groupMembership\.add\)/,
    );
    // A process with egp's own kinds only can neither check nor run it: refused by name.
    expect(() => readPlanFile(text, "memberships.plan.json")).toThrow(
      expect.objectContaining({ code: "EGP_PLAN_UNKNOWN_KIND" }),
    );
    expect(() => readPlanFile(text, "memberships.plan.json")).toThrow(
      /memberships\.plan\.json: not a usable plan file \(it names the kind "GroupMembership", which this process does not have/,
    );

    const desired = await load(dir);
    const result = await executePlan({
      plan: saved,
      desired,
      clients: new Map([["prod", client]]),
      journal: Journal.open(stateDir, saved, { steps: kinds.steps }),
      stateDir,
      concurrency: 2,
      logger,
      ops: kinds.ops,
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
    const live = await readLiveState(client, desired, { scope: "all", kinds: kinds.live });
    const { files } = exportManifests({ environment: desired.environment, live }, kinds.exporters);
    const file = files.find((f) => f.kind === "GroupMembership");
    expect(file?.file).toBe("group-memberships.yaml");
    // After the apply above: the two added members are there.
    expect(file?.text).toContain("group: Auditors\nmembers: [anguyen, cmendes, dpatel, ejohansson]\n");
    const roundTrip = await load(await repository(file?.text ?? ""));
    expect(memberships(roundTrip).length).toBe(4);
  });

  it("applies its plan from a saved file as `egp apply FILE` does: the saved plan is checked against the kind's own actions", async () => {
    const savedPlanOf = async (dir: string) => {
      const file = join(dir, "memberships.plan.json");
      await writeFile(file, writePlanFile((await replanOf(dir)).plan));
      return { file, saved: readPlanFile(await readFile(file, "utf8"), file, kinds.steps) };
    };
    const apply = (dir: string, file: string, plan: Plan) =>
      applyPlan({
        env: "prod",
        stateDir,
        replan: () => replanOf(dir),
        open: async () => client,
        saved: plan,
        savedFile: file,
        kinds,
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
  it("is pruned by a PrunePolicy made from this kinds value: groups no document names are cleared, excluded ones kept", async () => {
    const policy = [
      "kind: PrunePolicy",
      "groupMemberships: clear",
      "exclude: { groupMemberships: [Everyone, Admin*] }",
      "",
    ].join("\n");
    const dir = await repository(`${AUDITORS}---\n${policy}`);
    // egp's own kinds have no such prune choice: their PrunePolicy refuses it.
    const policyOnly = loadEnvironment(await repository(policy), "prod", { variables: { P: PASSWORD } });
    await expect(policyOnly).rejects.toThrow(/memberships\.yaml:2:1 .*groupMemberships/);
    const file = join(dir, "prune.plan.json");
    const before = await planFor(dir);
    await writeFile(file, writePlanFile(before));
    const saved = readPlanFile(await readFile(file, "utf8"), file, kinds.steps);
    expect(saved.changes.map((c) => [c.kind, c.key, c.action, c.destructive])).toEqual([
      ["GroupMembership", "Risk Owners", "delete", true],
    ]);
    expect(saved.excluded.map((e) => e.key).sort()).toEqual(["Administrators", "Everyone"]);
    const outcome = await applyPlan({
      env: "prod",
      stateDir,
      replan: () => replanOf(dir),
      open: async () => client,
      saved,
      savedFile: file,
      kinds,
    });
    expect(outcome).toMatchObject({ result: "complete", converged: true });
    expect(await client.users.memberIds(4)).toEqual([]);
    expect((await client.users.memberIds(1)).length).toBeGreaterThan(0);
  });
});

// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type PlatformClient } from "../../src/client/client.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { loadEnvironment } from "../../src/manifest/index.ts";
import { PlanError, planChanges } from "../../src/plan/index.ts";
import { readLiveState } from "../../src/state/index.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * An environment without a `groups:` map, as most are (the map is a copy to keep in step): group names are resolved by one read of the
 * instance's groups in the live read; an unknown name is a plan error at its manifest position; an
 * instance without the read (404) makes the map required, and the error says so. demo-prod: groups
 * 1 Everyone, 2 Administrators, 3 Auditors, 4 Risk Owners.
 */

const PASSWORD = "Groups#Test2026";
let prod: Emulator;
let client: PlatformClient;

const USERS = (groups: string) =>
  ["kind: User", "userName: anguyen", "firstName: Amy", "lastName: Nguyen", `groups: ${groups}`, ""].join(
    "\n",
  );

async function load(groups: string, extra: string[] = []) {
  const dir = await testdir({
    "environments/prod.yaml": [
      `url: ${prod.url}`,
      "instance: Default",
      "auth: { username: sysadmin, password: '${P}' }",
      ...extra,
      "",
    ].join("\n"),
    "manifests/users.yaml": USERS(groups),
  });
  return (await loadEnvironment(dir, "prod", { variables: { P: PASSWORD } })).state;
}

const plan = (desired: Awaited<ReturnType<typeof load>>, live: Awaited<ReturnType<typeof readLiveState>>) =>
  planChanges(desired, live, { createdAt: "2026-01-01T00:00:00Z" });

beforeAll(async () => {
  prod = await startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD });
  client = createClient({
    url: prod.url,
    instance: "Default",
    username: "sysadmin",
    password: PASSWORD,
    limits: { concurrency: 4, requestsPerSecond: 0 },
  });
});

afterAll(async () => {
  await client?.close();
  await prod?.close();
});

describe("group names without a groups map", () => {
  it("are resolved by one read of the instance's groups; only the named groups' members are read", async () => {
    const desired = await load("[Everyone, auditors]");
    expect(desired.environment.groupsFromInstance).toBe(true);
    const before = client.stats().byRoute;
    const live = await readLiveState(client, desired);
    const after = client.stats().byRoute;
    const delta = (route: string) => (after[route] ?? 0) - (before[route] ?? 0);
    expect(delta("POST /core/system/group")).toBe(1);
    expect(delta("POST /core/system/user/group/{}")).toBe(2);
    expect(live.groupsListed?.map((g) => g.Name)).toEqual([
      "Everyone",
      "Administrators",
      "Auditors",
      "Risk Owners",
    ]);
    expect(live.groupsRead).toEqual([1, 3]);
    // anguyen is in Everyone and Risk Owners on prod: the plan moves her from Risk Owners to Auditors.
    const change = plan(desired, live).changes.find((c) => c.key === "anguyen");
    expect(change?.fields.find((f) => f.field === "Groups")).toMatchObject({
      before: ["Everyone"],
      after: ["Everyone", "Auditors"],
    });
    const step = plan(desired, live).steps.find((s) => s.op === "user.update");
    expect(step?.input.groups).toEqual([1, 3]);
  });

  it("a name the instance does not have is a plan error at its file:line:col", async () => {
    const desired = await load("[Everyone, Risk Ownerz]");
    const live = await readLiveState(client, desired);
    expect(() => plan(desired, live)).toThrow(PlanError);
    expect(() => plan(desired, live)).toThrow(
      /^manifests\/users\.yaml:5:20 users\[0\]\.groups\[1\]: group "Risk Ownerz" does not exist on prod \(its groups: Everyone, Administrators, Auditors, Risk Owners\)$/,
    );
  });

  it.each([404, 405])(
    "an instance that can't list its groups (%i) makes the map required, and the error says so",
    async (status) => {
      prod.faults.script({ path: /\/core\/system\/group(\?|$)/, times: 1, action: { status } });
      const desired = await load("[Everyone]");
      const live = await readLiveState(client, desired);
      expect(live.groupsListed).toBeNull();
      expect(() => plan(desired, live)).toThrow(
        /^manifests\/users\.yaml:5:10 users\[0\]\.groups\[0\]: group "Everyone" can't be resolved: prod does not list its groups \(it does not offer core\/system\/group\), so environments\/prod\.yaml needs a groups map/,
      );
    },
  );

  it("with a map, the map is used and the instance's groups are not read", async () => {
    const desired = await load("[Everyone]", ["groups: { Everyone: 1 }"]);
    expect(desired.environment.groupsFromInstance).toBeUndefined();
    const before = client.stats().byRoute["POST /core/system/group"] ?? 0;
    const live = await readLiveState(client, desired);
    expect(client.stats().byRoute["POST /core/system/group"] ?? 0).toBe(before);
    expect(live.groupsListed).toBeUndefined();
    expect(live.groupsRead).toEqual([1]);
  });
});

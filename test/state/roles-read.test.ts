// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type PlatformClient } from "../../src/client/client.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { loadEnvironment } from "../../src/manifest/index.ts";
import { readLiveState } from "../../src/state/index.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * A user's roles are read back only for users whose manifest manages roles: one role list read and
 * one read per such user. demo-prod: roles 1 System Administrator, 2 General User, 3 Auditor,
 * 4 Risk Manager; hwright holds Risk Manager.
 */

const PASSWORD = "Roles#Read2026";
let prod: Emulator;
let client: PlatformClient;

const user = (name: string, roles?: string) =>
  [
    "kind: User",
    `userName: ${name}`,
    "firstName: A",
    "lastName: B",
    ...(roles ? [`roles: ${roles}`] : []),
  ].join("\n");

async function load(users: string[]) {
  const dir = await testdir({
    "environments/prod.yaml": [
      `url: ${prod.url}`,
      "instance: Default",
      "auth: { username: sysadmin, password: '${P}' }",
      "",
    ].join("\n"),
    "manifests/users.yaml": `${users.join("\n---\n")}\n`,
  });
  return (await loadEnvironment(dir, "prod", { variables: { P: PASSWORD } })).state;
}

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

describe("roles read back", () => {
  it("one list read and one read per role-managed user, none for the others", async () => {
    const desired = await load([
      user("hwright", "[Risk Manager]"),
      user("anguyen"),
      user("dpatel", "[General User]"),
    ]);
    const before = client.stats().byRoute;
    const live = await readLiveState(client, desired);
    const after = client.stats().byRoute;
    const delta = (route: string) => (after[route] ?? 0) - (before[route] ?? 0);
    expect(delta("POST /core/system/role")).toBe(1);
    expect(delta("POST /core/system/role/user/{}")).toBe(2);
    expect(live.rolesListed?.map((r) => r.Name)).toEqual([
      "System Administrator",
      "General User",
      "Auditor",
      "Risk Manager",
    ]);
    const byName = new Map(live.users.map((u) => [u.user.UserName, u.roles]));
    expect(byName.get("hwright")).toContain(4);
    expect(byName.get("anguyen")).toBeUndefined();
  });

  it("no role-managed user: no role read at all", async () => {
    const desired = await load([user("anguyen")]);
    const before = client.stats().byRoute["POST /core/system/role"] ?? 0;
    const live = await readLiveState(client, desired);
    expect(client.stats().byRoute["POST /core/system/role"] ?? 0).toBe(before);
    expect(live.rolesListed).toBeUndefined();
  });
});

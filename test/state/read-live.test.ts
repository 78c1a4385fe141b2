// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type PlatformClient } from "../../src/client/client.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { type DesiredState, loadEnvironment } from "../../src/manifest/index.ts";
import { type LiveState, readLiveState } from "../../src/state/index.ts";
import { type Json, Raw } from "../helpers/raw.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * readLiveState against demo-dev (the package source) and demo-prod (the target): the same objects
 * have other instance ids on each, and must still compare equal.
 */

const PASSWORD = "Live#Test2026";
const POLICIES = "dc51ffff-2708-50a1-90f6-95caf9c61d4e";
const COMMENTS = "f6ad3b50-dc4f-53ce-9630-6ae114cf566f";
const RISK_REGISTER = "33528536-2b2b-5d6d-943c-276096d4be22";
const REPORT = "f38aad5e-2d81-5d69-aadc-02fa7db00617";

let dev: Emulator;
let prod: Emulator;
let devClient: PlatformClient;
let prodClient: PlatformClient;
let desired: DesiredState;
let live: LiveState;

function client(url: string): PlatformClient {
  // No rate cap: the emulator is local, and the test reads three times.
  const limits = { concurrency: 4, requestsPerSecond: 0 };
  return createClient({ url, instance: "Default", username: "sysadmin", password: PASSWORD, limits });
}

function environment(url: string, extra: string[]): string {
  const auth = "auth: { username: sysadmin, password: '${P}' }";
  return [`url: ${url}`, "instance: Default", auth, ...extra, ""].join("\n");
}

const read = () => readLiveState(prodClient, desired, { source: devClient, scope: "all" });

beforeAll(async () => {
  [dev, prod] = await Promise.all([
    startEmulator({ port: 0, seed: "demo-dev", adminPassword: PASSWORD }),
    startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD }),
  ]);
  [devClient, prodClient] = [client(dev.url), client(prod.url)];
  const dir = await testdir({
    "environments/dev.yaml": environment(dev.url, []),
    // Auditors (3 on prod) is deliberately not mapped.
    "environments/prod.yaml": environment(prod.url, [
      "packagesFrom: dev",
      "groups: { Everyone: 1, Risk Owners: 4 }",
    ]),
    "manifests/package.yaml": [
      "kind: Package",
      "name: Core",
      "objects:",
      "  - application: Policies",
      `  - { guid: ${COMMENTS}, type: SubForm }`,
      `  - { guid: ${REPORT}, type: GlobalReport }`,
      "",
    ].join("\n"),
  });
  ({ state: desired } = await loadEnvironment(dir, "prod", { variables: { P: PASSWORD } }));
  live = await read();
});

afterAll(async () => {
  await Promise.all([devClient?.close(), prodClient?.close()]);
  await Promise.all([dev?.close(), prod?.close()]);
});

describe("readLiveState", () => {
  it("reads users with their contacts, and the membership of mapped groups only", () => {
    expect(live.groupsRead).toEqual([1, 4]);
    const anguyen = live.users.find((u) => u.user.UserName === "anguyen");
    expect(anguyen?.groups).toEqual([1, 4]);
    expect(anguyen?.contacts.map((c) => c.Value)).toEqual([
      "anguyen@example.com",
      "+1 555 0100",
      "+1 555 0101",
    ]);
    // In Everyone and Auditors; Auditors is not in the map, so its membership is unknown.
    expect(live.users.find((u) => u.user.UserName === "cmendes")?.groups).toEqual([1]);
    expect(live.securityParameters.map((p) => p.Name)).toContain("General User Parameter");
  });

  it("skips contacts and memberships when no manifest manages them (each read returns every user)", async () => {
    // No document manages users here: read as `--allow-delete` reads them, every kind.
    const managedOnly = await readLiveState(prodClient, desired, { source: devClient, everyKind: true });
    expect(desired.users.some((u) => u.contacts || u.groups)).toBe(false);
    expect(managedOnly.groupsRead).toEqual([]);
    expect(managedOnly.users.every((u) => u.contacts.length === 0 && u.groups.length === 0)).toBe(true);
    expect(managedOnly.users.map((u) => u.user.UserName)).toEqual(live.users.map((u) => u.user.UserName));
  });

  it("reads only the objects the manifests name, on both sides, with ids mapped to GUIDs", () => {
    const source = live.packageSource;
    expect(source?.environment).toBe("dev");
    expect(Object.keys(source?.objects ?? {}).sort()).toEqual([COMMENTS, POLICIES].sort());
    expect(Object.keys(live.packages.objects).sort()).toEqual([COMMENTS, POLICIES].sort());
    expect(source?.applicationsByName.policies).toBe(POLICIES);
    expect(source?.objects[COMMENTS]?.type).toBe("SubForm");
    expect(source?.objects[RISK_REGISTER]).toBeUndefined();
    expect(source?.objects[REPORT]).toBeUndefined();
    // Policies is module 2 on dev and 45 on prod, with other level and field ids: still equal.
    expect(live.packages.objects[POLICIES]?.fingerprint).toBe(source?.objects[POLICIES]?.fingerprint);
    expect(live.packages.objects[POLICIES]?.parts).toEqual(source?.objects[POLICIES]?.parts);
    expect(live.packages.objects[COMMENTS]?.fingerprint).toBe(source?.objects[COMMENTS]?.fingerprint);
  });

  it("has a digest that ignores logins and follows configuration changes", async () => {
    const raw = new Raw(prod.url);
    // A user logging in changes LastLoginDate, which is not configuration.
    await raw.token("anguyen", "Welcome#2026");
    expect((await read()).digest).toBe(live.digest);

    const token = await raw.token("sysadmin", PASSWORD);
    const users = await raw.read("/core/system/user", token);
    const user = (users.body as Json[]).map((e) => e.RequestedObject).find((u) => u.UserName === "anguyen");
    const put = await raw.call("/core/system/user", {
      method: "PUT",
      token,
      body: { User: { ...user, Title: "Changed" } },
    });
    expect(put.body).toMatchObject({ IsSuccessful: true });
    expect((await read()).digest).not.toBe(live.digest);
  });
});

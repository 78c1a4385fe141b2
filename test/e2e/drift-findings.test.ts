import type { IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogueOf } from "../../src/emulator/catalogue/model.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { egp, exampleOnEmulators } from "../helpers/cli.ts";
import { forwardingProxy } from "../helpers/forwarding-proxy.ts";
import { type Json, useEmulator } from "../helpers/raw.ts";

/*
 * `egp drift` findings on the example's applied demo pipeline, over HTTP: prod is changed behind
 * egp's back (raw HTTP, and an event rule made in the emulator as someone would in the UI), and
 * every request a drift run sends is logged by a proxy in front of each instance.
 */

const PASSWORD = "Password1!";
const ENV = { EGP_TEST_PASSWORD: PASSWORD, EGP_ACTOR: "dana" };
const dev = useEmulator({ seed: "demo-dev", jobs: { generateMs: 20, installMs: 20 } });
const prod = useEmulator({ seed: "demo-prod", jobs: { generateMs: 20, installMs: 20 } });

interface Sent {
  method: string;
  path: string;
  override: boolean;
}

/** Every request drift runs sent, to either instance. */
const sent: Sent[] = [];
let recording = false;
const proxies: Awaited<ReturnType<typeof forwardingProxy>>[] = [];
let repo: string;

function record(url: URL, req: IncomingMessage): false {
  if (recording)
    sent.push({
      method: req.method ?? "",
      path: url.pathname,
      override: String(req.headers["x-http-method-override"] ?? "").toUpperCase() === "GET",
    });
  return false;
}

async function drift(args: readonly string[], now?: string) {
  recording = true;
  try {
    return await egp(["drift", "--env", "local-prod", ...args, "--dir", repo], {
      env: ENV,
      ...(now ? { now } : {}),
    });
  } finally {
    recording = false;
  }
}

interface FindingJson {
  fingerprint: string;
  kind: string;
  object: string;
  part: string;
  partLabel: string;
  severity: string;
  valueHash: string;
  remedy: string;
  onlyOnTarget?: boolean;
  resurfaced?: string;
}

async function findings(now?: string) {
  const run = await drift(["--format", "json"], now);
  expect(run.stderr).toBe("");
  const json = JSON.parse(run.stdout);
  return { code: run.code, open: json.findings as FindingJson[], json };
}

async function token(): Promise<string> {
  return prod.raw().token("sysadmin", PASSWORD);
}

async function userNamed(userName: string, auth: string): Promise<Json> {
  const users = await prod.raw().read("/core/system/user", auth);
  return (users.body as Json[]).map((e) => e.RequestedObject).find((u) => u.UserName === userName);
}

async function setTitle(userName: string, title: string): Promise<void> {
  const auth = await token();
  const user = await userNamed(userName, auth);
  const put = await prod.raw().call("/core/system/user", {
    method: "PUT",
    token: auth,
    body: { User: { ...user, Title: title } },
  });
  expect(put.body).toMatchObject({ IsSuccessful: true });
}

async function setMinPasswordLength(name: string, length: number): Promise<void> {
  const auth = await token();
  const all = (await prod.raw().read("/core/system/securityparameter", auth)).body as Json[];
  const parameter = all.map((e) => e.RequestedObject).find((p) => p.Name === name);
  const put = await prod.raw().call("/core/system/securityparameter", {
    method: "PUT",
    token: auth,
    body: { ...parameter, MinPasswordLength: length },
  });
  expect(put.body, put.text).toMatchObject({ IsSuccessful: true });
}

async function leaveGroup(userName: string, groupName: string): Promise<void> {
  const auth = await token();
  const user = await userNamed(userName, auth);
  const groups = (await prod.raw().read("/core/system/group", auth)).body as Json[];
  const group = groups.map((e) => e.RequestedObject).find((g) => g.Name === groupName);
  const put = await prod.raw().call("/core/system/usergroup", {
    method: "PUT",
    token: auth,
    body: { UserId: user.Id, GroupId: group.Id, IsAdd: false },
  });
  expect(put.body, put.text).toMatchObject({ IsSuccessful: true });
}

/** An event rule someone made on prod's risk level: no package delivers it, and no install removes it. */
function ruleOnlyOnProd(): void {
  const catalogue = catalogueOf(prod.emulator().store);
  const level = catalogue.byGuid("levels", demoGuid("risks/risk"));
  if (!level) throw new Error("demo-prod has no risk level");
  catalogue.put("eventRules", {
    Id: catalogue.nextId("eventRules"),
    Guid: "0e0e0e0e-1111-4222-8333-555555555555",
    Alias: "notify_board",
    Name: "Notify the board",
    LevelId: level.Id,
    Condition: "true",
    ConditionFieldIds: [],
    IsActive: true,
    UpdateInformation: null,
  });
  prod.emulator().store.changed();
}

beforeAll(async () => {
  for (const side of [dev, prod]) proxies.push(await forwardingProxy(side.emulator().url, record));
  repo = await exampleOnEmulators({ dev: proxies[0]?.url ?? "", prod: proxies[1]?.url ?? "" });
  const applied = await egp(["apply", "--env", "local-prod", "--yes", "--dir", repo], { env: ENV });
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
}, 120_000);

afterAll(() => Promise.all(proxies.map((proxy) => proxy.close())));

describe("egp drift findings", () => {
  let before: FindingJson[];

  it("lists what only the target has after an apply, as findings only a person can remove", async () => {
    const { code, open } = await findings();
    before = open;
    expect(open.length).toBeGreaterThan(0);
    expect(open.every((f) => f.onlyOnTarget && f.remedy === "only by hand: a package cannot remove it")).toBe(
      true,
    );
    expect(open.map((f) => f.partLabel)).toContain(
      'field "Legacy Control ID" of "Control", only on the target',
    );
    expect(code).toBe(2);
  });

  it("lists each prod-only change made by direct calls with a fingerprint, and exits 2", async () => {
    await setTitle("anguyen", "Head of Everything");
    await setMinPasswordLength("General User Parameter", 8);
    await leaveGroup("anguyen", "Risk Owners");
    ruleOnlyOnProd();
    const { code, open } = await findings();
    expect(code).toBe(2);
    const of = (kind: string, object: string, part: string) =>
      open.find((f) => f.kind === kind && f.object === object && f.part.startsWith(part));
    expect(of("User", "anguyen", "Title")).toMatchObject({ severity: "medium", remedy: "plan fixes it" });
    expect(of("User", "anguyen", "Groups")).toMatchObject({ severity: "high", remedy: "plan fixes it" });
    expect(of("SecurityParameter", "General User Parameter", "MinPasswordLength")).toMatchObject({
      severity: "high",
    });
    const rule = open.find((f) => f.partLabel.startsWith('event rule "Notify the board"'));
    expect(rule).toMatchObject({
      kind: "Package",
      severity: "high",
      onlyOnTarget: true,
      remedy: "only by hand: a package cannot remove it",
    });
    for (const finding of open) expect(finding.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(new Set(open.map((f) => f.fingerprint)).size).toBe(open.length);
    expect(open.length).toBe(before.length + 4);

    const text = await drift([]);
    expect(text.code).toBe(2);
    expect(text.stdout).toMatch(/^Findings on local-prod: \d+ open\.$/m);
    expect(text.stdout).toMatch(/^ {2}User "anguyen" \(manifests\/users\.yaml:\d+\)$/m);
  });

  it("keeps a finding's fingerprint when its live value changes, and changes its value hash", async () => {
    const title = async () =>
      (await findings()).open.find((f) => f.object === "anguyen" && f.part === "Title");
    const first = await title();
    await setTitle("anguyen", "Chief of Staff");
    const second = await title();
    expect(second?.fingerprint).toBe(first?.fingerprint);
    expect(second?.valueHash).not.toBe(first?.valueHash);
  });
});

describe("what a drift run sends", () => {
  it("is reads only: GET, POST with the GET override, login and logout", () => {
    expect(sent.length).toBeGreaterThan(0);
    const writes = sent.filter(
      (r) =>
        r.method !== "GET" &&
        !(r.method === "POST" && r.override) &&
        !(r.method === "POST" && /\/core\/security\/(login|logout)$/.test(r.path)),
    );
    expect(writes).toEqual([]);
  });
});

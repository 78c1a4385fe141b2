import { readFile, writeFile } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogueOf } from "../../src/emulator/catalogue/model.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { egp, exampleOnEmulators } from "../helpers/cli.ts";
import { driftRecorder, type FindingJson, findingsOf } from "../helpers/drift-runs.ts";
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

const recorder = driftRecorder();
/** A path prod's proxy refuses (403) while set: one kind's read failing. */
let refusedPath: string | undefined;
/** While set, dev's proxy drops every connection: the package source can't be reached. */
let devDown = false;
const proxies: Awaited<ReturnType<typeof forwardingProxy>>[] = [];
let repo: string;

function refuse(res: ServerResponse, status: number): true {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      IsSuccessful: false,
      ValidationMessages: [{ Reason: "Forbidden", Description: "Not allowed." }],
    }),
  );
  return true;
}

async function drift(args: readonly string[], now?: string) {
  return recorder.during(() =>
    egp(["drift", "--env", "local-prod", ...args, "--dir", repo], {
      env: ENV,
      ...(now ? { now } : {}),
    }),
  );
}

async function findings(now?: string) {
  return findingsOf(await drift(["--format", "json"], now));
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
  proxies.push(
    await forwardingProxy(dev.emulator().url, (url, req) => {
      if (!devDown) return recorder.record(url, req);
      req.socket.destroy();
      return true;
    }),
  );
  proxies.push(
    await forwardingProxy(prod.emulator().url, (url, req, res) =>
      refusedPath && url.pathname.endsWith(refusedPath) ? refuse(res, 403) : recorder.record(url, req),
    ),
  );
  repo = await exampleOnEmulators({ dev: proxies[0]?.url ?? "", prod: proxies[1]?.url ?? "" });
  const applied = await egp(["apply", "--env", "local-prod", "--yes", "--dir", repo], { env: ENV });
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
}, 120_000);

afterAll(() => Promise.all(proxies.map((proxy) => proxy.close())));

describe("egp drift findings", { timeout: 60_000 }, () => {
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

describe("a drift that can't read everything", { timeout: 60_000 }, () => {
  it("reports every other kind when one kind fails to read, and names it as an open finding", async () => {
    refusedPath = "/core/system/user";
    const { code, open } = await findings().finally(() => {
      refusedPath = undefined;
    });
    expect(code).toBe(2);
    const users = open.find((f) => f.kind === "unchecked" && f.object === "users");
    expect(users).toMatchObject({ severity: "high", fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(users?.partLabel).toMatch(/^unchecked: /);
    // Not compared, so not reported as missing either.
    expect(open.filter((f) => f.kind === "User")).toEqual([]);
    expect(open.some((f) => f.kind === "SecurityParameter")).toBe(true);
    expect(open.some((f) => f.kind === "Package" && f.onlyOnTarget)).toBe(true);
  });

  it("reports every other kind when the package source can't be reached", async () => {
    devDown = true;
    try {
      const { code, open } = await findings();
      expect(code).toBe(2);
      expect(open.find((f) => f.kind === "unchecked")).toMatchObject({
        object: "package objects",
        partLabel: expect.stringMatching(/^unchecked: .*local-dev/),
      });
      expect(open.filter((f) => f.kind === "Package")).toEqual([]);
      expect(open.some((f) => f.kind === "User" && f.object === "anguyen")).toBe(true);

      // status counts the same: prod is read, and what could not be compared is open.
      const status = await egp(["status", "--format", "json", "--env", "local-prod", "--dir", repo], {
        env: ENV,
      });
      const [prodRow] = JSON.parse(status.stdout).environments;
      expect(prodRow).toMatchObject({ reachable: true, drift: expect.objectContaining({ unchecked: 1 }) });
      expect(prodRow.driftTotal).toBe(open.length);
    } finally {
      devDown = false;
    }
  });
});

/** `YYYY-MM-DD`, `days` after today (UTC). */
function daysAhead(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

async function ack(
  fingerprint: string,
  extra: readonly string[] = ["--reason", "known: board asked for it"],
) {
  return recorder.during(() =>
    egp(["drift", "ack", fingerprint, "--env", "local-prod", ...extra, "--dir", repo], {
      env: ENV,
    }),
  );
}

describe("acknowledgements", { timeout: 120_000 }, () => {
  const until = daysAhead(30);
  let parameter: FindingJson;

  it("an acknowledged finding is listed apart: one fewer open, still exit 2", async () => {
    const before = await findings();
    const found = before.open.find((f) => f.kind === "SecurityParameter");
    if (!found) throw new Error("no security parameter finding");
    parameter = found;
    const written = await ack(parameter.fingerprint, ["--reason", "pen test in progress", "--until", until]);
    expect(written.stderr).toBe("");
    expect(written.code).toBe(0);
    const file = `drift-acks/local-prod-${parameter.fingerprint}.yaml`;
    expect(written.stdout).toContain(`wrote ${file}: `);
    const text = await readFile(join(repo, file), "utf8");
    for (const line of [
      "environment: local-prod",
      `fingerprint: "${parameter.fingerprint}"`,
      `valueHash: "${parameter.valueHash}"`,
      'reason: "pen test in progress"',
      `until: "${until}"`,
      'by: "dana"',
    ])
      expect(text).toContain(line);

    const after = await findings();
    expect(after.code).toBe(2);
    expect(after.open.length).toBe(before.open.length - 1);
    expect(after.open.map((f) => f.fingerprint)).not.toContain(parameter.fingerprint);
    expect(after.json.acknowledged).toEqual([
      expect.objectContaining({
        fingerprint: parameter.fingerprint,
        acknowledgement: { file, reason: "pen test in progress", until, by: "dana" },
      }),
    ]);
    expect(after.json.unusedAcknowledgements).toEqual([]);
    const text2 = await drift([]);
    expect(text2.stdout).toMatch(/^Acknowledged \(not open\):$/m);

    // status counts the same open findings.
    const status = await egp(["status", "--format", "json", "--env", "local-prod", "--dir", repo], {
      env: ENV,
    });
    expect(JSON.parse(status.stdout).environments[0].driftTotal).toBe(after.open.length);
  });

  it("comes back when the live value changes again, and is acknowledged again when it changes back", async () => {
    await setMinPasswordLength("General User Parameter", 7);
    const changed = await findings();
    expect(changed.open.find((f) => f.fingerprint === parameter.fingerprint)).toMatchObject({
      resurfaced: "acknowledged value changed",
    });
    expect(changed.json.acknowledged).toEqual([]);
    expect(changed.json.unusedAcknowledgements).toEqual([
      expect.objectContaining({ fingerprint: parameter.fingerprint, why: "acknowledged value changed" }),
    ]);
    await setMinPasswordLength("General User Parameter", 8);
    const back = await findings();
    expect(back.open.map((f) => f.fingerprint)).not.toContain(parameter.fingerprint);
  });

  it("comes back when it expires", async () => {
    const later = new Date(Date.parse(`${until}T00:00:00Z`) + 86_400_000 + 3_600_000).toISOString();
    const expired = await findings(later);
    expect(expired.open.find((f) => f.fingerprint === parameter.fingerprint)?.resurfaced).toMatch(/^expired/);
  });

  it("comes back when edited so that it no longer matches, and the edited one is listed as unused", async () => {
    const file = join(repo, `drift-acks/local-prod-${parameter.fingerprint}.yaml`);
    const text = await readFile(file, "utf8");
    await writeFile(file, text.replace(parameter.fingerprint, "0123456789abcdef"));
    try {
      const edited = await findings();
      expect(edited.open.map((f) => f.fingerprint)).toContain(parameter.fingerprint);
      expect(edited.json.unusedAcknowledgements).toEqual([
        expect.objectContaining({
          fingerprint: "0123456789abcdef",
          why: expect.stringContaining("no finding"),
        }),
      ]);
    } finally {
      await writeFile(file, text);
    }
  });

  it("refuses an acknowledgement without a reason, too far ahead, or of an unknown environment", async () => {
    const noReason = await egp(
      ["drift", "ack", parameter.fingerprint, "--env", "local-prod", "--until", until, "--dir", repo],
      { env: ENV },
    );
    expect(noReason.code).toBe(1);
    const blank = await ack(parameter.fingerprint, ["--reason", " ", "--until", until]);
    expect(blank.code).toBe(1);
    expect(blank.stderr).toMatch(/^egp: EGP_DRIFT_ACK_REFUSED --reason/);
    const far = await ack(parameter.fingerprint, ["--reason", "later", "--until", daysAhead(200)]);
    expect(far.code).toBe(1);
    expect(far.stderr).toMatch(/^egp: EGP_DRIFT_ACK_REFUSED --until \S+ is \d+ days ahead, more than 90 /);
    const unknown = await egp(
      [
        "drift",
        "ack",
        parameter.fingerprint,
        "--env",
        "staging",
        "--reason",
        "x",
        "--until",
        until,
        "--dir",
        repo,
      ],
      { env: ENV },
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/staging/);

    // validate checks the files: an unknown environment, an until too far ahead.
    const file = join(repo, "drift-acks/hand-written.yaml");
    const good = await readFile(join(repo, `drift-acks/local-prod-${parameter.fingerprint}.yaml`), "utf8");
    await writeFile(file, good.replace("environment: local-prod", "environment: staging"));
    const unknownEnv = await egp(["validate", "--dir", repo], { env: ENV });
    expect(unknownEnv.code).toBe(1);
    expect(unknownEnv.stdout + unknownEnv.stderr).toMatch(
      /drift-acks\/hand-written\.yaml:\d+:\d+.*unknown environment "staging"/,
    );
    await writeFile(file, good.replace(`until: "${until}"`, `until: "${daysAhead(200)}"`));
    const tooFar = await egp(["validate", "--dir", repo], { env: ENV });
    expect(tooFar.code).toBe(1);
    expect(tooFar.stdout + tooFar.stderr).toMatch(/more than 90/);
    await writeFile(file, good);
    const valid = await egp(["validate", "--dir", repo], { env: ENV });
    expect(valid.code, valid.stdout + valid.stderr).toBe(0);
  });

  it("exits 0 once every finding is acknowledged", async () => {
    for (const finding of (await findings()).open) {
      const written = await ack(finding.fingerprint, ["--reason", "known", "--until", until]);
      expect(written.code, written.stderr).toBe(0);
    }
    const run = await drift(["--format", "json"]);
    expect(run.code, run.stdout).toBe(0);
    expect(JSON.parse(run.stdout).findings).toEqual([]);
  });
});

describe("what a drift run sends", () => {
  it("is reads only: GET, POST with the GET override, login and logout", () => {
    expect(recorder.sent.length).toBeGreaterThan(0);
    expect(recorder.writes()).toEqual([]);
  });
});

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { egp, environmentFile, lines } from "../helpers/cli.ts";
import { forwardingProxy } from "../helpers/forwarding-proxy.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * A Record document setting fields that only demo-dev's Controls has (Last Tested, a date; Test
 * Result, a values list), in the same plan as the Package that promotes Controls from demo-dev to
 * demo-prod: the plan shows the fields as the package's, apply installs the package and then writes
 * the records with the ids the install gave the fields and their values (recorded by a proxy in
 * front of demo-prod), and the next plan has no changes.
 */

const PASSWORD = "Password1!";
const ENV = { EGP_TEST_PASSWORD: PASSWORD };
const FAST = { generateMs: 20, installMs: 20 };

const PACKAGE = [
  "kind: Package",
  "name: Controls Pack",
  "preparedBy: Platform Engineering",
  "install: { method: createAndUpdate, layout: keep, translations: install }",
  "objects:",
  "  - application: Controls",
  "",
].join("\n");

const CONTROLS = [
  "kind: Record",
  "application: Controls",
  "key: [Control Name]",
  "records:",
  "  - Control Name: AC-2 Account management",
  "    Test Result: Effective",
  "    Last Tested: 2026-11-30",
  "  - Control Name: AC-9 Remote access",
  "    Control Type: Preventive",
  "    Test Result: Ineffective",
  "",
].join("\n");

const FINDINGS_PACKAGE = PACKAGE.replace("name: Controls Pack", "name: Findings Pack").replace(
  "application: Controls",
  "application: Findings",
);

const FINDINGS = [
  "kind: Record",
  "application: Findings",
  "key: [Finding Title]",
  "records:",
  "  - Finding Title: Stale admin accounts",
  "    Severity: High",
  "    Identified Date: 2026-11-02",
  "",
].join("\n");

const started: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.close()));
});

interface Written {
  method: string;
  body: string;
}

async function repository(controls: string, refuse = { writes: false }, pkg = PACKAGE) {
  const dev: Emulator = await startEmulator({
    port: 0,
    seed: "demo-dev",
    adminPassword: PASSWORD,
    jobs: FAST,
  });
  const prod: Emulator = await startEmulator({
    port: 0,
    seed: "demo-prod",
    adminPassword: PASSWORD,
    jobs: FAST,
  });
  started.push(dev, prod);
  const written: Written[] = [];
  const proxy = await forwardingProxy(prod.url, (url, req, res) => {
    if (req.method !== "POST" && req.method !== "PUT") return false;
    if (req.headers["x-http-method-override"] || !/\/core\/content$/i.test(url.pathname)) return false;
    if (refuse.writes) {
      res
        .writeHead(400, { "content-type": "application/json" })
        .end('[{"IsSuccessful":false,"ValidationMessages":[]}]');
      return true;
    }
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => written.push({ method: req.method ?? "", body: Buffer.concat(chunks).toString() }));
    return false;
  });
  started.push(proxy);
  const dir = await testdir({
    "environments/dev.yaml": environmentFile(dev.url),
    "environments/prod.yaml": environmentFile(proxy.url, ["packagesFrom: dev"]),
    "manifests/packages.yaml": pkg,
    "manifests/controls.yaml": controls,
  });
  return { dir, written };
}

const run = (dir: string, ...args: string[]) => egp([...args, "--dir", dir], { env: ENV });

describe("Record documents setting fields a package of the same plan adds", () => {
  it("plans them as the package's, writes the ids the install gave them, and then plans no changes", async () => {
    const { dir, written } = await repository(CONTROLS);
    const planned = await run(dir, "plan", "--env", "prod", "--out", join(dir, "prod.plan.json"));
    expect(planned.stderr).toBe("");
    expect(planned.code).toBe(0);
    expect(planned.stdout).toMatch(
      /~ Record Controls "AC-2 Account management"\n {6}~ Test Result: null -> "Effective"\n {6}~ Last Tested: null -> "2026-11-30"\n {6}# "Test Result", "Last Tested": added by package "Controls Pack" of this plan/,
    );
    expect(planned.stdout).toMatch(
      /\+ Record Controls "AC-9 Remote access"[\s\S]*# "Test Result": added by package "Controls Pack" of this plan/,
    );
    const stdout = planned.stdout;
    expect(stdout.indexOf("Package")).toBeLessThan(stdout.indexOf("Record"));

    // The saved plan names the package's fields by GUID (the same on every instance), never by id.
    const saved = JSON.parse(await readFile(join(dir, "prod.plan.json"), "utf8")) as {
      steps: Array<{
        op: string;
        input: { fields: unknown[]; packaged?: Array<{ guid: string; value: unknown }> };
      }>;
    };
    const update = saved.steps.find((step) => step.op === "record.update")?.input;
    expect(update?.fields).toEqual([]);
    expect(update?.packaged?.map((write) => write.guid)).toEqual([
      demoGuid("controls/control/test-result"),
      demoGuid("controls/control/last-tested"),
    ]);
    expect(update?.packaged?.[0]?.value).toEqual({
      ValuesListGuids: [{ guid: expect.stringMatching(/^[0-9a-f-]{36}$/), name: "Effective" }],
      OtherText: null,
    });

    // The plan saved before the install applies: the fields it adds are its own package's.
    const applied = await run(dir, "apply", join(dir, "prod.plan.json"));
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    expect(written.map((write) => write.method).sort()).toEqual(["POST", "PUT"]);
    for (const { body } of written) {
      expect(body).not.toMatch(/Effective|Ineffective|Preventive|[0-9a-f]{8}-[0-9a-f]{4}-/);
      expect(body).toMatch(/"Type":4,"Value":\{"ValuesListIds":\[\d+\],"OtherText":null\},"FieldId":\d+/);
    }
    const put = written.find((write) => write.method === "PUT")?.body ?? "";
    expect(put).toMatch(/"Type":3,"Value":"2026-11-30","FieldId":\d+/);

    const again = await run(dir, "plan", "--env", "prod");
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("No changes.");
  });

  it("after its install, a saved plan whose record writes failed is stale as its package is; a fresh apply writes them", {
    timeout: 90_000,
  }, async () => {
    const refuse = { writes: true };
    const { dir, written } = await repository(CONTROLS, refuse);
    expect((await run(dir, "plan", "--env", "prod", "--out", join(dir, "prod.plan.json"))).code).toBe(0);
    const failed = await run(dir, "apply", join(dir, "prod.plan.json"));
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('Record/Controls "AC-9 Remote access"#create (prod): FAILED');
    refuse.writes = false;
    const again = await run(dir, "apply", join(dir, "prod.plan.json"));
    expect(again.code).toBe(1);
    expect(lines(again.stderr)).toEqual([
      expect.stringMatching(
        /^egp: EGP_PLAN_STALE the saved plan \w+ is stale: the live package objects, records of prod changed since it was made \(no longer: Package\/Controls Pack:promote\)/,
      ),
    ]);
    expect(written).toEqual([]);

    // Planned afresh, the fields are the target's own, written by the ids it now has.
    const fresh = await run(dir, "apply", "--env", "prod", "--yes");
    expect(fresh.stderr).toBe("");
    expect(fresh.code).toBe(0);
    expect(fresh.stdout).not.toContain("added by package");
    expect(written.map((write) => write.method).sort()).toEqual(["POST", "PUT"]);
    expect(written.map((write) => write.body).join("\n")).toMatch(/"ValuesListIds":\[\d+\]/);
    expect((await run(dir, "plan", "--env", "prod")).stdout).toContain("No changes.");
  });

  it("creates records in an application the package adds, in the level the install made", async () => {
    const { dir, written } = await repository(FINDINGS, { writes: false }, FINDINGS_PACKAGE);
    const planned = await run(dir, "plan", "--env", "prod");
    expect(planned.stderr).toBe("");
    expect(planned.code).toBe(0);
    expect(planned.stdout).toMatch(
      /\+ Record Findings "Stale admin accounts"\n {6}\+ Finding Title: "Stale admin accounts"\n {6}\+ Severity: "High"\n {6}\+ Identified Date: "2026-11-02"\n {6}# level "Finding" and its fields "Finding Title", "Severity", "Identified Date": added by package "Findings Pack" of this plan/,
    );
    const applied = await run(dir, "apply", "--env", "prod", "--yes");
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    expect(written.map((write) => write.method)).toEqual(["POST"]);
    expect(written[0]?.body).toMatch(/^\{"LevelId":\d+,"FieldContents":/);
    expect(written[0]?.body).toMatch(/"Type":4,"Value":\{"ValuesListIds":\[\d+\],"OtherText":null\}/);
    expect(written[0]?.body).not.toMatch(/High|[0-9a-f]{8}-[0-9a-f]{4}-/);
    const again = await run(dir, "plan", "--env", "prod");
    expect(again.stderr).toBe("");
    expect(again.stdout).toContain("No changes.");
  });

  it("refuses a field in neither prod's Controls nor the package's, with the closest of both", async () => {
    const { dir, written } = await repository(
      CONTROLS.replace("Test Result: Effective", "Test Reslt: Effective"),
    );
    const refused = await run(dir, "plan", "--env", "prod");
    expect(refused.code).toBe(1);
    expect(lines(refused.stderr)).toEqual([
      'egp: EGP_PLAN_INVALID manifests/controls.yaml:6:17 records[0].records[0]["Test Reslt"]: "Controls" has no field "Test Reslt" on prod, nor does package "Controls Pack" of this plan add one; did you mean "Test Result"?',
    ]);
    expect(written).toEqual([]);
  });
});

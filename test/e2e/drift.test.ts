import { beforeAll, describe, expect, it } from "vitest";
import { readPlanFile } from "../../src/plan/index.ts";
import { egp, environmentFile, lines } from "../helpers/cli.ts";
import { type Json, useEmulator } from "../helpers/raw.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * `egp drift` against an emulator this test runs, so that the test can change the instance behind
 * egp's back over raw HTTP, as someone clicking in the platform's UI would.
 */

const PASSWORD = "Drift#Test2026";
const env = { EGP_TEST_PASSWORD: PASSWORD };
const { emulator, raw } = useEmulator({ seed: "demo-prod", adminPassword: PASSWORD });

const MAPS = [
  "roles: { System Administrator: 1, General User: 2, Auditor: 3, Risk Manager: 4 }",
  "groups: { Everyone: 1, Administrators: 2, Auditors: 3, Risk Owners: 4 }",
];

async function setTitle(userName: string, title: string): Promise<void> {
  const token = await raw().token("sysadmin", PASSWORD);
  const users = await raw().read("/core/system/user", token);
  const user = (users.body as Json[]).map((e) => e.RequestedObject).find((u) => u.UserName === userName);
  // An update resets what it omits, so the whole user goes back with the one field changed.
  const put = await raw().call("/core/system/user", {
    method: "PUT",
    token,
    body: { User: { ...user, Title: title } },
  });
  expect(put.body).toMatchObject({ IsSuccessful: true });
}

describe("egp drift", () => {
  let repo: string;

  beforeAll(async () => {
    repo = await testdir({ "environments/prod.yaml": environmentFile(emulator().url, MAPS) });
    const exported = await egp(["export", "--env", "prod", "--out", "manifests/exported"], {
      cwd: repo,
      env,
    });
    expect(exported.code).toBe(0);
  });

  it("exits 0 when the instance matches the manifests (export's output)", async () => {
    const run = await egp(["drift", "--env", "prod"], { cwd: repo, env });
    expect(run).toMatchObject({ code: 0, stderr: "" });
    // Export leaves out the account egp logs in with: it stays unmanaged, and is no drift.
    expect(lines(run.stdout)).toEqual([
      "No drift. prod matches the manifests.",
      "Unmanaged, left alone (not in the manifests; see PrunePolicy): 1 User.",
    ]);
  });

  it("exits 2 after an out-of-band change over raw HTTP, and shows it", async () => {
    await setTitle("anguyen", "Head of Everything");
    const run = await egp(["drift", "--env", "prod"], { cwd: repo, env });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("");
    const out = lines(run.stdout);
    // A report of what has drifted, not a plan of what egp will do.
    expect(out[0]).toBe("prod has drifted from the manifests:");
    expect(run.stdout).not.toContain("egp will perform");
    expect(run.stdout).toMatch(/^ {2}# User "anguyen" has drifted \(apply would update it in place\) \(/m);
    expect(out).toContain('  ~ User "anguyen"');
    expect(out).toContain('      ~ title: "Head of Everything" -> "Senior Risk Manager"');
    expect(out).toContain("Drift: 0 to add, 1 to change, 0 to destroy, 0 to promote.");
    // Then the findings, by object: one line each, with the fingerprint `egp drift ack` takes.
    expect(out.slice(-3)).toEqual([
      "Findings on prod: 1 open.",
      expect.stringMatching(/^ {2}User "anguyen" \(manifests\/exported\/users\.yaml:\d+\)$/),
      expect.stringMatching(/^ {4}[0-9a-f]{16} {2}medium {2}title: plan fixes it$/),
    ]);

    const markdown = await egp(["drift", "--env", "prod", "--format", "markdown"], { cwd: repo, env });
    expect(markdown.code).toBe(2);
    expect(lines(markdown.stdout)[0]).toBe("### egp drift: `prod` has drifted");
    expect(markdown.stdout).not.toContain("egp plan");

    const json = await egp(["drift", "--env", "prod", "--format", "json"], { cwd: repo, env });
    expect(json.code).toBe(2);
    expect(readPlanFile(json.stdout).summary).toMatchObject({ change: 1, drift: 1 });
    expect(JSON.parse(json.stdout).findings).toEqual([
      expect.objectContaining({ kind: "User", object: "anguyen", part: "Title", severity: "medium" }),
    ]);

    await setTitle("anguyen", "Senior Risk Manager");
    const back = await egp(["drift", "--env", "prod"], { cwd: repo, env });
    expect(back.code).toBe(0);
  });

  it("counts roles the instance holds otherwise as drift, since it reads them back", async () => {
    const dir = await testdir({
      "environments/prod.yaml": environmentFile(emulator().url, MAPS),
      "manifests/users.yaml": [
        "kind: User",
        "userName: cmendes",
        "firstName: Carla",
        "lastName: Mendes",
        "department: Audit",
        "roles: [General User, Risk Manager]",
        "groups: [Everyone, Auditors]",
        "",
      ].join("\n"),
    });
    const token = await raw().token("sysadmin", PASSWORD);
    const users = (await raw().read("/core/system/user", token)).body as Json[];
    const id = users.map((e) => e.RequestedObject).find((u) => u.UserName === "cmendes")?.Id;
    const held = ((await raw().read(`/core/system/role/user/${id}`, token)).body as Json[]).map(
      (e) => e.RequestedObject.Name,
    );
    expect(held).not.toContain("Risk Manager");
    const drift = await egp(["drift", "--env", "prod", "--format", "json"], { cwd: dir, env });
    expect(drift.stderr).toBe("");
    expect(drift.code).toBe(2);
    const parsed = readPlanFile(drift.stdout);
    expect(parsed.summary).toMatchObject({ change: 1, drift: 1 });
    expect(parsed.changes[0]?.fields).toEqual([
      { field: "Roles", before: held, after: ["General User", "Risk Manager"], verifiable: true },
    ]);
    // --enforce-roles has nothing to add where roles are compared.
    const enforced = await egp(["plan", "--env", "prod", "--enforce-roles", "--format", "json"], {
      cwd: dir,
      env,
    });
    expect(readPlanFile(enforced.stdout).changes[0]?.fields).toEqual(parsed.changes[0]?.fields);
  });

  it("exits 1 with one line on an unknown environment", async () => {
    const run = await egp(["drift", "--env", "staging"], { cwd: repo, env });
    expect(run).toMatchObject({ code: 1, stdout: "" });
    expect(lines(run.stderr)).toEqual([
      "egp: EGP_MANIFEST_INVALID environments/staging.yaml: no such environment (known: prod)",
    ]);
  });
});

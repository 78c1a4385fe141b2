import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readPlanFile } from "../../src/plan/index.ts";
import { egp, exampleTree, lines, type Run } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * `egp plan` on a copy of the project's example: local-prod (embedded demo-prod) with packages
 * promoted from local-dev (embedded demo-dev). Without `?data=` every run starts from the seeds.
 */

let repo: string;
let text: Run;

beforeAll(async () => {
  repo = await testdir(exampleTree({ persist: false }));
  text = await egp(["plan", "--env", "local-prod"], { cwd: repo });
});

describe("egp plan against demo-prod", () => {
  it("shows the user created, the parameter updated and the package promoted, in text", () => {
    expect(text.code).toBe(0);
    expect(text.stderr).toBe("");
    const out = lines(text.stdout);
    expect(out[0]).toBe("egp will perform the following actions on local-prod:");
    expect(out).toContain('  # User "kmurphy" will be created (manifests/users.yaml:48:11)');
    expect(out).toContain('  + User "kmurphy"');
    // Fields by their manifest names, values as manifests write them (the JSON keeps the wire's).
    expect(out).toContain('      + securityParameter: "Contractor Parameter"');
    expect(out).toContain('      + status: "active"');
    expect(out).toContain(
      '      + contacts: [{"type":"email","subType":"business","value":"kieran.murphy@acme-assurance.example","default":true}]',
    );
    expect(out).toContain('      + lockoutPeriod.unit: "hours"');
    expect(out).toContain('      + disallowedDays: ["sunday","saturday"]');
    expect(out).toContain('      + permittedFrom: "07:00"');
    expect(out).toContain('      + password: "(sensitive)" (enforced, not verifiable)');
    expect(text.stdout).not.toMatch(/AccountStatus|LockoutPeriodType|ContactType|MinPasswordLength/);
    expect(out).toContain('  ~ SecurityParameter "General User Parameter"');
    expect(out).toContain("      ~ minPasswordLength: 8 -> 12");
    expect(out).toContain('  + SecurityParameter "Contractor Parameter"');
    expect(out).toContain('  ~ User "anguyen"');
    expect(out).toContain('      ~ title: "Senior Risk Manager" -> "Risk Manager"');
    expect(out).toContain('  # Package "GRC Core" will be promoted (manifests/packages.yaml:6:7)');
    expect(out).toContain(
      '      ~ Application Findings: "(absent)" -> "1 level, 10 fields, 1 layout, 1 rule, 2 actions"',
    );
    expect(out.at(-1)).toBe("Plan: 2 to add, 3 to change, 0 to destroy, 1 to promote.");
  });

  it("names every differing part of the promoted objects, with severities", () => {
    const out = lines(text.stdout);
    expect(out).toContain(
      '      ~ Application Controls: "1 level, 9 fields, 1 layout" -> "5 part(s) to add, 1 to change, 1 only on the target (1 critical)"',
    );
    for (const line of [
      '          + field "Last Tested": added',
      '          + field "Test Result": added',
      '          - field "Legacy Control ID": only on the target [critical]',
      '          + event rule "Ineffective control": added',
      '          ~ event rule "Escalate critical risks": condition "Risk_Score >= 20" → "Risk_Score >= 15" [critical]',
    ])
      expect(out).toContain(line);
    const layout = out.find((line) => line.includes('~ layout "Control Layout"'));
    expect(layout).toContain('section "Testing" added with "Last Tested", "Test Result"');
    expect(layout).toContain('section "General" field "Legacy Control ID" removed');
    // The example installs with `layout: keep`: the plan says the install leaves it alone.
    expect(layout).toMatch(/\(the install keeps the target's\)$/);
  });

  it("folds each promoted object's parts in markdown and carries them in JSON", async () => {
    const [markdown, json] = await Promise.all([
      egp(["plan", "--env", "local-prod", "--format", "markdown"], { cwd: repo }),
      egp(["plan", "--env", "local-prod", "--format", "json"], { cwd: repo }),
    ]);
    expect(markdown.stdout).toContain(
      "<details><summary><code>Package &quot;GRC Core&quot; · Application Controls: 5 part(s) to add, 1 to change, 1 only on the target (1 critical)</code></summary>",
    );
    expect(markdown.stdout).toContain('- field "Legacy Control ID": only on the target [critical]');
    const plan = readPlanFile(json.stdout);
    const controls = plan.changes[0]?.fields.find((f) => f.field === "Application Controls");
    expect(controls?.parts).toContainEqual({
      part: "field",
      guid: expect.any(String),
      name: "Legacy Control ID",
      parent: "Control",
      status: "onlyOnTarget",
      severity: "critical",
    });
    expect(controls?.parts?.find((p) => p.name === "Control Layout")).toMatchObject({
      status: "changed",
      keptByInstall: true,
      properties: expect.arrayContaining([
        { property: 'section "Testing"', after: ["Last Tested", "Test Result"], severity: "normal" },
      ]),
    });
  });

  it("renders markdown for a pull request: summary table, details per kind", async () => {
    const run = await egp(["plan", "--env", "local-prod", "--format", "markdown"], { cwd: repo });
    expect(run.code).toBe(0);
    const out = lines(run.stdout);
    expect(out[0]).toBe("### egp plan for `local-prod`");
    expect(out).toContain("| 2 | 3 | 0 | 1 |");
    expect(out).toContain("<details><summary>Package (1)</summary>");
    expect(out).toContain("<details><summary>SecurityParameter (2)</summary>");
    expect(out).toContain("<details><summary>User (3)</summary>");
    expect(out).toContain('+ User "kmurphy"');
  });

  it("prints the JSON plan (format version 1) with the package chain in order", async () => {
    const run = await egp(["plan", "--env", "local-prod", "--format", "json"], { cwd: repo });
    expect(run.code).toBe(0);
    const plan = readPlanFile(run.stdout);
    expect(plan).toMatchObject({
      formatVersion: 1,
      environment: "local-prod",
      sourceEnvironment: "local-dev",
      summary: { add: 2, change: 3, destroy: 0, promote: 1 },
    });
    expect(plan.changes.map((c) => `${c.action} ${c.id}`)).toEqual([
      "promote Package/GRC Core",
      "update SecurityParameter/General User Parameter",
      "create SecurityParameter/Contractor Parameter",
      "update User/anguyen",
      "update User/cmendes",
      "create User/kmurphy",
    ]);
    const ops = plan.steps.map((s) => s.op);
    expect(ops.filter((op) => op.startsWith("package."))).toEqual([
      "package.create",
      "package.generate",
      "package.download",
      "package.snapshot",
      "package.snapshot-generate",
      "package.snapshot-download",
      "package.upload",
      "package.install",
      "package.verify",
    ]);
    // The contractor's parameter is made before the user who names it.
    expect(ops.indexOf("securityParameter.create")).toBeLessThan(ops.indexOf("user.create"));
    const create = plan.steps.find((s) => s.op === "user.create");
    expect(create?.dependsOn).toContain("SecurityParameter/Contractor Parameter#create");
  });

  it("--out saves a plan file that reads back, readable by its owner only", async () => {
    const file = join(repo, "out.plan.json");
    const run = await egp(["plan", "--env", "local-prod", "--out", file, "--format", "json"], { cwd: repo });
    expect(run.code).toBe(0);
    const saved = await readFile(file, "utf8");
    expect(saved).toBe(run.stdout);
    const plan = readPlanFile(saved, file);
    expect(plan.summary).toMatchObject({ add: 2, change: 3, destroy: 0, promote: 1 });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it("--detailed-exitcode exits 2 when there are changes", async () => {
    const run = await egp(["plan", "--env", "local-prod", "--detailed-exitcode"], { cwd: repo });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe(text.stdout);
  });

  it("--detailed-exitcode exits 0 when the instance already matches", async () => {
    const dir = await testdir({
      ...exampleTree({ persist: false, manifests: false }),
      // The seed's Services Parameter, as it is.
      "manifests/services.yaml": [
        "kind: SecurityParameter",
        "name: Services Parameter",
        "minPasswordLength: 16",
        "passwordChangeInterval: 365",
        "maximumFailedLoginAttempts: 10",
        "sessionTimeout: { value: 8, unit: hours }",
        "",
      ].join("\n"),
    });
    const run = await egp(["plan", "--env", "local-prod", "--detailed-exitcode"], { cwd: dir });
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(lines(run.stdout)[0]).toBe("No changes. local-prod matches the manifests.");
    const changed = await testdir({
      ...exampleTree({ persist: false, manifests: false }),
      "manifests/services.yaml": "kind: SecurityParameter\nname: Services Parameter\nminPasswordLength: 17\n",
    });
    const differs = await egp(["plan", "--env", "local-prod", "--detailed-exitcode"], { cwd: changed });
    expect(differs.code).toBe(2);
    expect(lines(differs.stdout)).toContain("      ~ minPasswordLength: 16 -> 17");
  });
});

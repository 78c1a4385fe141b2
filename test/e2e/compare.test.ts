import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Comparison } from "../../src/plan/index.ts";
import { egp, exampleTree, lines } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * `egp compare` on a copy of the example: local-dev (embedded demo-dev) against local-prod (embedded
 * demo-prod), without `?data=`, so every run starts from the seeds. Exit 0 same, 2 different, 1 error.
 */

let repo: string;

beforeAll(async () => {
  // No manifests: compare reads the two environment files only, so a broken manifest can't stop it.
  repo = await testdir({
    ...exampleTree({ persist: false, manifests: false }),
    "manifests/bad.yaml": "kind: Nope\n",
  });
});

const compare = (...args: string[]) =>
  egp(["compare", "--from", "local-dev", "--to", "local-prod", ...args], { cwd: repo });

describe("egp compare", () => {
  it("exits 2 when the instances differ, naming the differing parts by group, in text", async () => {
    const run = await compare();
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("");
    const out = lines(run.stdout);
    expect(out[0]).toBe("egp compare: local-dev → local-prod");
    expect(out).toContain("  2 mismatched, 1 missing in target, 0 missing in source, 3 matched (6 compared)");
    expect(out).toContain("Mismatched (2)");
    expect(out).toContain(
      '  ~ Application "Controls": 5 missing in target, 1 mismatched, 1 missing in source (1 critical)',
    );
    expect(out).toContain('      - field "Legacy Control ID": missing in local-dev [critical]');
    expect(out).toContain('      + field "Last Tested": missing in local-prod');
    expect(out).toContain(
      '  + Application "Findings": not on local-prod (1 level, 10 fields, 1 layout, 1 rule, 2 actions)',
    );
    expect(out).toContain('  = Application "Policies": 2 levels, 11 fields, 2 layouts, 2 rules, 2 actions');
    expect(out.at(-1)).toBe("local-dev and local-prod differ.");
  });

  it("exits 0 when the applications named match", async () => {
    const run = await compare("--applications", "Policies", "comments");
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(lines(run.stdout)).toContain(
      "  0 mismatched, 0 missing in target, 0 missing in source, 2 matched (2 compared)",
    );
  });

  it("prints JSON (format version 1) with counts and every part", async () => {
    const run = await compare("--format", "json", "--applications", "Controls", "Risk Register");
    expect(run.code).toBe(2);
    const comparison = JSON.parse(run.stdout) as Comparison;
    expect(comparison).toMatchObject({
      formatVersion: 1,
      from: "local-dev",
      to: "local-prod",
      summary: {
        objects: 2,
        matched: 0,
        mismatched: 2,
        parts: { added: 5, changed: 2, onlyOnTarget: 1, critical: 2 },
      },
    });
    const risks = comparison.objects.find((o) => o.name === "Risk Register");
    expect(risks?.parts).toEqual([
      {
        part: "rule",
        guid: expect.any(String),
        name: "Escalate critical risks",
        parent: "Risk",
        status: "changed",
        severity: "critical",
        properties: [
          {
            property: "condition",
            before: "Risk_Score >= 20",
            after: "Risk_Score >= 15",
            severity: "critical",
          },
        ],
      },
    ]);
    // --json is the same as --format json.
    const json = await egp(["--json", "compare", "--from", "local-dev", "--to", "local-prod"], { cwd: repo });
    expect(JSON.parse(json.stdout).summary.objects).toBe(6);
  });

  it("writes markdown and HTML reports to --out, saying so in one line", async () => {
    const md = await compare("--format", "markdown", "--out", "report.md");
    expect(md).toMatchObject({ code: 2, stderr: "" });
    expect(md.stdout).toBe(
      "wrote report.md: 2 mismatched, 1 missing in target, 0 missing in source, 3 matched\n",
    );
    const markdown = await readFile(join(repo, "report.md"), "utf8");
    expect(markdown).toContain("| 3 | 2 | 1 | 0 | 2 |");
    expect(markdown).toContain(
      "<details><summary><code>Missing in target · Application &quot;Findings&quot;",
    );
    const html = await compare("--format", "html", "--out", "report.html");
    expect(html.code).toBe(2);
    const text = await readFile(join(repo, "report.html"), "utf8");
    expect(text).toMatch(/^<!doctype html>/);
    expect(text).toContain("Legacy Control ID");
  });

  it("exits 1 with one line for an unknown application, environment or unwritable --out", async () => {
    const unknown = await compare("--applications", "Controls", "Nope");
    expect(unknown.code).toBe(1);
    expect(lines(unknown.stderr)).toEqual([
      'egp: EGP_USAGE --applications: no application or sub-form named "Nope" on local-dev or local-prod',
    ]);
    const env = await egp(["compare", "--from", "local-dev", "--to", "staging"], { cwd: repo });
    expect(env.code).toBe(1);
    expect(lines(env.stderr)).toHaveLength(1);
    expect(env.stderr).toContain("environments/staging.yaml");
    const out = await compare("--out", join(repo, "missing", "dir", "r.txt"));
    expect(out.code).toBe(1);
    expect(lines(out.stderr)).toEqual([
      expect.stringMatching(/^egp: EGP_FILE_SYSTEM --out: cannot write .*r\.txt \(ENOENT\)$/),
    ]);
  });
});

// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { egp, type Run } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * A value substituted from ${VAR} into a field that is not a password (a description, a first
 * name) is sensitive wherever it lands: no output of plan (text, markdown, JSON), no plan file and no
 * apply output holds it; the plan shows the reference; apply of a saved plan re-reads the variable
 * and refuses the plan once the value changed.
 */

const MARK = "S3cr3tMarkerXYZ";
const OTHER = "OTHERSECRETzz9";
const ENV = { EGP_PROD_PASSWORD: MARK };

const MANIFESTS = [
  "kind: SecurityParameter",
  "name: Marked",
  'description: "${EGP_PROD_PASSWORD}"',
  "---",
  "kind: User",
  "userName: marked",
  'firstName: "${EGP_PROD_PASSWORD}"',
  "lastName: Lee",
  "",
].join("\n");

const all = (...runs: Run[]) => runs.map((run) => run.stdout + run.stderr).join("\n");

describe("a substituted description or first name", () => {
  let repo: string;

  beforeAll(async () => {
    repo = await testdir({
      "environments/prod.yaml": "url: embedded:empty?data=.egp/prod.db\n",
      "manifests/marked.yaml": MANIFESTS,
    });
  });

  it("plans as its reference in text, markdown and JSON, and the plan file holds no piece of it", async () => {
    const text = await egp(["plan", "--env", "prod", "--out", "plan.json"], { cwd: repo, env: ENV });
    const markdown = await egp(["plan", "--env", "prod", "--format", "markdown"], { cwd: repo, env: ENV });
    const json = await egp(["plan", "--env", "prod", "--format", "json"], { cwd: repo, env: ENV });
    expect([text.code, markdown.code, json.code]).toEqual([0, 0, 0]);
    expect(text.stdout).toContain("+ description: ${EGP_PROD_PASSWORD} (sensitive)");
    expect(text.stdout).toContain("+ firstName: ${EGP_PROD_PASSWORD} (sensitive)");
    expect(markdown.stdout).toContain("${EGP_PROD_PASSWORD} (sensitive)");
    const file = await readFile(join(repo, "plan.json"), "utf8");
    expect(all(text, markdown, json)).not.toContain(MARK);
    expect(file).not.toContain(MARK);
    expect(JSON.parse(file).sensitive).toHaveLength(2);
    expect(JSON.parse(file).sensitive[0].digest).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
  });

  it("apply of the saved plan refuses it once the variable holds another value, naming only the reference", async () => {
    const run = await egp(["apply", "--env", "prod", "plan.json"], {
      cwd: repo,
      env: { EGP_PROD_PASSWORD: OTHER },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("${EGP_PROD_PASSWORD}");
    expect(run.stderr).toContain("is not the one it was made with");
    expect(all(run)).not.toContain(MARK);
    expect(all(run)).not.toContain(OTHER);
  });

  it("apply of the saved plan sends the value, and a plan afterwards shows no change without showing it", async () => {
    const apply = await egp(["apply", "--env", "prod", "plan.json"], { cwd: repo, env: ENV });
    expect(apply.code, apply.stderr).toBe(0);
    const after = await egp(["plan", "--env", "prod", "--detailed-exitcode"], { cwd: repo, env: ENV });
    expect(after.code, after.stdout).toBe(0);
    // The value changes: the plan says so by its reference, never with the live value it replaces.
    const changed = await egp(["plan", "--env", "prod"], { cwd: repo, env: { EGP_PROD_PASSWORD: OTHER } });
    expect(changed.stdout).toContain("~ description: ${EGP_PROD_PASSWORD} (sensitive, changes)");
    expect(all(apply, after, changed)).not.toContain(MARK);
    expect(all(changed)).not.toContain(OTHER);
  });
});

describe("a substituted user name of the login", () => {
  it("is not printed when the login is refused", async () => {
    const repo = await testdir({
      "environments/prod.yaml":
        'url: embedded:empty\nauth: { username: "${EGP_PROD_USER}", password: nope }\n',
    });
    const run = await egp(["plan", "--env", "prod"], { cwd: repo, env: { EGP_PROD_USER: OTHER } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("was refused");
    expect(all(run)).not.toContain(OTHER);
  });
});

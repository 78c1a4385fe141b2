import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { egp, lines } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * What a pull request or a damaged `.egp/` can do to a run, through the egp binary: names that are
 * Object's own, journals egp can't read.
 */

const ENVIRONMENT = "url: embedded:empty\nroles: { General User: 2 }\ngroups: { Everyone: 1 }\n";
const USER = ["kind: User", "userName: jdoe", "firstName: Jane", "lastName: Doe"];

describe("names that Object has built in", () => {
  it("are refused by validate --env at the name's position, not sent to the platform", async () => {
    const dir = await testdir({
      "environments/dev.yaml": ENVIRONMENT,
      "manifests/users.yaml": [...USER, "roles: [General User, constructor]", ""].join("\n"),
    });
    const run = await egp(["validate", "--env", "dev", "--dir", dir]);
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toEqual([
      'manifests/users.yaml:5:23 users[0].roles[1]: role "constructor" is not in the roles of environments/dev.yaml (General User)',
      "egp: invalid: 1 error",
    ]);
  });
});

describe("an apply journal egp can't read", () => {
  async function withUnreadableJournal(): Promise<{ dir: string; journal: string }> {
    const dir = await testdir({
      "environments/dev.yaml": ENVIRONMENT,
      "manifests/users.yaml": [...USER, "roles: [General User]", ""].join("\n"),
    });
    const folder = join(dir, ".egp", "journal", "dev");
    await mkdir(folder, { recursive: true });
    const journal = join(folder, "0123456789abcdef.jsonl");
    const plan = {
      format: 1,
      id: "0123456789abcdef",
      environment: "dev",
      steps: [{ input: { roles: [null] } }],
    };
    await writeFile(journal, `${JSON.stringify({ type: "plan", at: "2026-01-01T00:00:00.000Z", plan })}\n`);
    return { dir, journal };
  }

  it("stops an apply with one line that says how to discard it", async () => {
    const { dir, journal } = await withUnreadableJournal();
    const run = await egp(["apply", "--env", "dev", "--yes", "--dir", dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(lines(run.stderr)).toHaveLength(1);
    expect(run.stderr).toContain(`egp: ${journal}: egp can't read this apply journal (its plan: `);
    expect(run.stderr).toContain("discard it with 'egp apply --env dev --discard'");
  });

  it("is announced by plan, which goes on", async () => {
    const { dir } = await withUnreadableJournal();
    const run = await egp(["plan", "--env", "dev", "--dir", dir]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('User "jdoe" will be created');
    expect(run.stderr).toContain("egp can't read this apply journal");
  });

  it("is cleared by apply --discard, after which apply runs", async () => {
    const { dir, journal } = await withUnreadableJournal();
    const discard = await egp(["apply", "--env", "dev", "--discard", "--dir", dir]);
    expect(discard).toMatchObject({ code: 0, stderr: "" });
    expect(discard.stdout).toBe(`Discarded ${journal}, an apply journal egp can't read.\n`);
    expect(await readFile(journal, "utf8")).toContain('"type":"closed"');
    const apply = await egp(["apply", "--env", "dev", "--yes", "--dir", dir]);
    expect(apply.stderr).toBe("");
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain("Apply complete: 1 added");
  });
});

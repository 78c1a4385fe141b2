import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { fieldWordsOf } from "../../src/manifest/index.ts";
import { DEFAULT_MARKDOWN_LIMIT, readPlanFile, renderMarkdown } from "../../src/plan/index.ts";
import { egp, exampleTree, type Run } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * `egp show FILE`: the plan saved by `plan --out` (the CI artifact), printed for a person: what
 * `plan` printed when it saved the file. It needs neither the repository nor the instance: the
 * file is shown from another, empty folder.
 */

let repo: string;
let elsewhere: string;
let file: string;
let planned: Run;

beforeAll(async () => {
  repo = await testdir(exampleTree({ persist: false }));
  elsewhere = await testdir({});
  file = join(elsewhere, "plan.json");
  planned = await egp(["plan", "--env", "local-prod", "--out", file], { cwd: repo });
}, 60_000);

describe("egp show", () => {
  it("prints a saved plan as `plan` printed it when it saved it (text, the default)", async () => {
    expect(planned.code).toBe(0);
    const shown = await egp(["show", "plan.json"], { cwd: elsewhere });
    expect(shown).toEqual({ code: 0, stdout: planned.stdout, stderr: "" });
    expect(shown.stdout).toContain('+ User "kmurphy"');
  });

  it("--format markdown prints the pull-request comment of that plan (its id)", async () => {
    const plan = readPlanFile(await readFile(file, "utf8"));
    const shown = await egp(["show", "plan.json", "--format", "markdown"], { cwd: elsewhere });
    const words = { words: fieldWordsOf };
    expect(shown).toEqual({
      code: 0,
      stdout: renderMarkdown(plan, DEFAULT_MARKDOWN_LIMIT, words),
      stderr: "",
    });
    expect(shown.stdout).toContain(`<sub>plan ${plan.id}</sub>`);
  });

  it("--format json prints the plan file itself", async () => {
    const shown = await egp(["show", "plan.json", "--format", "json"], { cwd: elsewhere });
    expect(shown).toEqual({ code: 0, stdout: await readFile(file, "utf8"), stderr: "" });
  });

  it("--json prints the plan file's JSON", async () => {
    const shown = await egp(["--json", "show", file]);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ formatVersion: 1, environment: "local-prod" });
  });

  it.each([
    ["not JSON", "{ this is not", "bad.json: not a usable plan file (it is not JSON)"],
    [
      "another format version",
      '{"formatVersion": 99}',
      "bad.json: not a usable plan file (format version 99;",
    ],
    ["a damaged plan", '{"formatVersion": 1}', "bad.json: not a usable plan file ("],
  ])("refuses %s in one line, exit 1, no stack", async (_what, text, message) => {
    const dir = await testdir({});
    await writeFile(join(dir, "bad.json"), text);
    const shown = await egp(["show", "bad.json"], { cwd: dir });
    expect(shown).toMatchObject({ code: 1, stdout: "" });
    expect(shown.stderr).toContain(`egp: EGP_PLAN_FILE_INVALID ${message}`);
    expect(shown.stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  it("says a missing file is missing, in one line", async () => {
    const dir = await testdir({});
    const shown = await egp(["show", "nope.json"], { cwd: dir });
    expect(shown.code).toBe(1);
    expect(shown.stderr).toMatch(
      /^egp: EGP_FILE_SYSTEM cannot open .*nope\.json: no such file or directory \(ENOENT\)\n$/,
    );
  });
});

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { egp, exampleTree, ROOT } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/* `--json`: stdout is JSON Lines and nothing else, each apply line of a documented type. */

/** The `type`s docs/plan-format.md documents, from its table after the marker. */
async function documentedTypes(): Promise<string[]> {
  const doc = await readFile(join(ROOT, "docs", "plan-format.md"), "utf8");
  const table = doc.split("<!-- egp:json-line-types -->")[1]?.split("\n\n")[0] ?? "";
  const rows = table.split(/^\|---.*$/m)[1] ?? "";
  return [...rows.matchAll(/^\| `([a-z]+)` \|/gm)].map((match) => match[1] ?? "");
}

function jsonLines(stdout: string): Array<Record<string, unknown>> {
  const lines = stdout.split("\n");
  expect(lines.pop()).toBe("");
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("--json", () => {
  it("apply: every stdout line is JSON of a documented type; the summary counts as the plan does", async () => {
    // Kept in .egp/ between runs, so that a second apply has nothing to do.
    const dir = await testdir(exampleTree());
    const applied = await egp(["--json", "apply", "--env", "local-prod", "--yes"], { cwd: dir });
    expect(applied.code, applied.stderr).toBe(0);
    const records = jsonLines(applied.stdout);
    const types = await documentedTypes();
    expect(types).toEqual(["plan", "step", "summary", "verification"]);
    for (const record of records) expect(types).toContain(record.type);

    const [first, ...rest] = records;
    const plan = first?.plan as { steps: Array<{ id: string }>; summary: Record<string, number> };
    expect(first?.type).toBe("plan");
    const done = rest.filter((r) => r.type === "step" && r.event === "done").map((r) => r.step);
    expect(done.sort()).toEqual(plan.steps.map((s) => s.id).sort());
    const summary = rest.find((r) => r.type === "summary");
    expect(summary).toMatchObject({
      result: "complete",
      added: plan.summary.add,
      changed: plan.summary.change,
      destroyed: plan.summary.destroy,
      promoted: plan.summary.promote,
    });
    expect(plan.summary).toMatchObject({ add: 2, change: 3, promote: 1 });
    expect(records.at(-1)).toEqual({ type: "verification", environment: "local-prod", converged: true });

    // Nothing to do: the plan and a summary that says so.
    const again = await egp(["--json", "apply", "--env", "local-prod", "--yes"], { cwd: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(jsonLines(again.stdout).map((r) => r.type)).toEqual(["plan", "summary"]);
    expect(jsonLines(again.stdout)[1]).toMatchObject({ result: "no-changes" });

    // A sentence for people goes to stderr, leaving stdout empty.
    const discard = await egp(["--json", "apply", "--env", "local-prod", "--discard"], { cwd: dir });
    expect(discard).toEqual({
      code: 0,
      stdout: "",
      stderr: "No interrupted apply is pending for local-prod; nothing to discard.\n",
    });
  });

  it("plan, drift, show, validate and export: one JSON line each", async () => {
    const dir = await testdir(exampleTree({ persist: false }));
    const plan = await egp(["--json", "plan", "--env", "local-prod", "--out", "plan.json"], { cwd: dir });
    expect(plan.code).toBe(0);
    expect(jsonLines(plan.stdout)).toEqual([expect.objectContaining({ formatVersion: 1 })]);
    const drift = await egp(["--json", "drift", "--env", "local-prod"], { cwd: dir });
    expect(drift.code).toBe(2);
    expect(jsonLines(drift.stdout)).toEqual([expect.objectContaining({ formatVersion: 1 })]);
    const show = await egp(["--json", "show", "plan.json"], { cwd: dir });
    expect(jsonLines(show.stdout)).toEqual([expect.objectContaining({ formatVersion: 1 })]);
    const validate = await egp(["--json", "validate"], { cwd: dir });
    expect(jsonLines(validate.stdout)).toEqual([expect.objectContaining({ ok: true, environments: 2 })]);
    const exported = await egp(["--json", "export", "--env", "local-prod", "--out", "exported"], {
      cwd: dir,
    });
    expect(jsonLines(exported.stdout)).toEqual([expect.objectContaining({ files: expect.any(Array) })]);
  });
});

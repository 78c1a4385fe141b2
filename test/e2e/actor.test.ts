import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { egp, exampleTree, lines } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * Who applied, and who approved: in GitHub Actions the actor is who started the run, as GitHub says
 * it; the audit record names where the actor came from and the approvers CI passed.
 */

const hour = 3600_000;
const iso = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString().replace(/\.\d+Z$/, "Z");
const PROD = "environments/local-prod.yaml";
// A re-run: bob pushed (GITHUB_ACTOR), alice started this run of the workflow.
const CI = { GITHUB_ACTIONS: "true", GITHUB_ACTOR: "bob", GITHUB_TRIGGERING_ACTOR: "alice" };
const apply = (dir: string, env: Record<string, string>) =>
  egp(["apply", "--env", "local-prod", "--yes", "--dir", dir], { env });

async function changesLeft(dir: string): Promise<string> {
  const plan = await egp(["plan", "--env", "local-prod", "--dir", dir]);
  return plan.stdout.match(/^Plan: .*$/m)?.[0] ?? "No changes.";
}

describe("the actor in CI", () => {
  it("refuses an EGP_ACTOR that is not who started the run, before anything is written", async () => {
    const dir = await testdir(exampleTree());
    const before = await changesLeft(dir);
    expect(before).toMatch(/^Plan: \d+ to add/);
    const refused = await apply(dir, { ...CI, EGP_ACTOR: "bob" });
    expect(refused.code).toBe(1);
    expect(lines(refused.stderr)).toEqual([
      "egp: EGP_ACTOR_MISMATCH EGP_ACTOR is bob, but GitHub Actions says alice started this run (GITHUB_TRIGGERING_ACTOR); in CI the actor is who started the run: remove EGP_ACTOR",
    ]);
    expect(await changesLeft(dir)).toBe(before);
    await expect(readdir(join(dir, ".egp/store/records/audit"))).rejects.toThrow(/ENOENT/);
  }, 90_000);

  it("matches a freeze exception against who started the run, not who pushed", async () => {
    const tree = exampleTree();
    tree[PROD] =
      `${tree[PROD]}\nfreeze:\n  - { from: ${iso(-hour)}, to: ${iso(48 * hour)}, reason: year-end close }\n`;
    tree["freeze-exceptions/hotfix.yaml"] =
      `environment: local-prod\nuntil: ${iso(12 * hour)}\nreason: incident 4711\nallowedBy: [bob]\n`;
    const dir = await testdir(tree);
    const refused = await apply(dir, CI);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("freeze-exceptions/hotfix.yaml does not allow alice");
  }, 90_000);

  it("records the actor's source and the approvers CI passes", async () => {
    const dir = await testdir(exampleTree());
    const applied = await apply(dir, { ...CI, EGP_APPROVERS: "carol,dave" });
    expect(applied.code, applied.stderr).toBe(0);
    const elsewhere = await testdir(exampleTree());
    const local = await apply(elsewhere, { EGP_ACTOR: "erin" });
    expect(local.code, local.stderr).toBe(0);
    const first = async (at: string) => {
      const audit = await egp(["audit", "--format", "json", "--dir", at]);
      return (JSON.parse(audit.stdout) as { records: Record<string, unknown>[] }).records[0];
    };
    expect(await first(dir)).toMatchObject({
      actor: "alice",
      actorSource: "GITHUB_TRIGGERING_ACTOR",
      approvers: ["carol", "dave"],
    });
    const text = await egp(["audit", "--dir", dir]);
    expect(text.stdout).toContain("    actor source: GITHUB_TRIGGERING_ACTOR\n    approvers: carol; dave\n");
    const declared = await first(elsewhere);
    expect(declared).toMatchObject({ actor: "erin", actorSource: "EGP_ACTOR" });
    expect(declared).not.toHaveProperty("approvers");
  }, 90_000);
});

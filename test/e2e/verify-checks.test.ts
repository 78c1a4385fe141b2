import { describe, expect, it } from "vitest";
import type { PlatformClient } from "../../src/client/client.ts";
import { contentOf } from "../../src/emulator/content/model.ts";
import { egp, lines } from "../helpers/cli.ts";
import { RECORDS_ENV, useRecordsProd } from "../helpers/records-prod.ts";

/*
 * The checks of behaviour an environment's file lists under `verify.checks`, run by the built CLI's
 * apply against demo-prod (Cloud provider outage sits at the Risk Review workflow's Review node;
 * the Auditors group holds cmendes, an Auditor, and ejohansson, who is not).
 */

const startProd = useRecordsProd();

const CHECKS = [
  "verify:",
  "  allowWrites: true",
  "  checks:",
  "    - workflow:",
  "        record: { application: Risk Register, key: { Risk Name: Cloud provider outage } }",
  "        node: Review",
  "        transitions: [Approve, Reject, Request Information]",
  "    - record: { application: Third Parties, create: { Vendor Name: egp probe, Tier: Tier 3 } }",
  "    - users: { group: Auditors, hasRole: General User }",
  "",
].join("\n");

const apply = (dir: string) => egp(["apply", "--env", "prod", "--yes", "--dir", dir], { env: RECORDS_ENV });

async function vendors(client: PlatformClient): Promise<string[]> {
  const records = await client.contentApi.allRecords("Third_Party");
  return records.map((record) => String(record.Vendor_Name)).sort();
}

describe("verify.checks after an apply", () => {
  it("runs each check, deletes the probe's record, and records the results with the probe's id", async () => {
    const { client, dir } = await startProd({ "environments/prod.yaml": CHECKS });
    const before = await vendors(client);
    const applied = await apply(dir);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(
      /Check passed: workflow of Risk Register "Cloud provider outage" at Review/,
    );
    expect(applied.stdout).toMatch(
      /Check passed: record probe in Third Parties: record \d+ created, read back and deleted/,
    );
    expect(applied.stdout).toContain('Check passed: users of group "Auditors" have role "General User"');
    expect(await vendors(client)).toEqual(before);
    const audit = await egp(["audit", "--dir", dir, "--format", "json"]);
    expect(audit.stdout).toMatch(/"probes": \[\s*\d+\s*\]/);
  }, 120_000);

  it("fails with EGP_CHECK_FAILED naming a transition the workflow no longer offers, and a record at another node", async () => {
    const { emulator, dir } = await startProd({ "environments/prod.yaml": CHECKS });
    const workflow = Object.values(contentOf(emulator.store).workflows).find((w) => w.Name === "Risk Review");
    const review = workflow?.Nodes.find((node) => node.Name === "Review");
    if (!review) throw new Error("no Review node");
    review.Transitions = review.Transitions.filter((transition) => transition.Name !== "Reject");
    const removed = await apply(dir);
    expect(removed.code).toBe(1);
    expect(lines(removed.stderr)).toEqual([
      expect.stringMatching(
        /^egp: EGP_CHECK_FAILED prod is not verified: a check failed: workflow of Risk Register "Cloud provider outage" at Review: "Reject" is not offered at Review \(offered: "Approve", "Request Information"\)$/,
      ),
    ]);

    review.Transitions = [];
    const moved = { ...review, Id: "299", Name: "Escalated" };
    workflow?.Nodes.push(moved);
    for (const record of Object.values(contentOf(emulator.store).records))
      if (record.Workflow?.NodeId === review.Id) record.Workflow = { ...record.Workflow, NodeId: moved.Id };
    const elsewhere = await apply(dir);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain('at Review: record is at node "Escalated"');
  }, 120_000);

  it("fails a role check a member does not pass, and one the instance can't answer, never passing it", async () => {
    const roleCheck = "verify:\n  checks:\n    - users: { group: Auditors, hasRole: Auditor }\n";
    const { dir } = await startProd({ "environments/prod.yaml": roleCheck });
    const lacking = await apply(dir);
    expect(lacking.code).toBe(1);
    expect(lacking.stderr).toMatch(/have role "Auditor": 1 of 2 member\(s\) lack the role \(user ids \d+\)/);

    const { dir: blind } = await startProd({ "environments/prod.yaml": roleCheck }, { integrations: false });
    const unanswered = await apply(blind);
    expect(unanswered.code).toBe(1);
    expect(unanswered.stderr).toContain("cannot check roles: the instance does not answer the role reads");
  }, 120_000);

  it("refuses a record probe without allowWrites, at its position", async () => {
    const { dir } = await startProd({
      "environments/prod.yaml":
        "verify:\n  checks:\n    - record: { application: Third Parties, create: { Vendor Name: egp probe } }\n",
    });
    const validated = await egp(["validate", "--dir", dir], { env: RECORDS_ENV });
    expect(validated.code).toBe(1);
    expect(validated.stderr).toMatch(
      /environments\/prod\.yaml:6:15 verify\.checks\[0\]\.record: a record probe writes to the instance .*set verify\.allowWrites: true/,
    );
  }, 60_000);
});

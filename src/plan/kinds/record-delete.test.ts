import { describe, expect, it } from "vitest";
import { CREATED_AT, desired, live } from "../../../test/builders/plan.ts";
import type { DesiredRecordEntry, DesiredRecords } from "../../manifest/kinds/record.ts";
import type { LiveRecord, LiveRecordLevel } from "../../state/kinds/record.ts";
import { planChanges } from "../plan-changes.ts";

/* Record deletes on a level built here: Name (text, the key) and Score (numeric). */

const LEVEL: LiveRecordLevel = {
  application: "Risk Register",
  levelId: 7,
  levelName: "Risk",
  entitySet: "Risk",
  fields: [
    { id: 101, name: "Name", alias: "Name", type: 1, values: [] },
    { id: 102, name: "Score", alias: "Score", type: 2, values: [] },
  ],
  records: [],
};

const risks = (count: number, from = 2000): LiveRecord[] =>
  Array.from({ length: count }, (_, at) => ({ id: from + at, values: { Name: `Risk ${at}`, Score: at } }));

function entry(line: number, name: string, absent = false): DesiredRecordEntry {
  const source = { file: "manifests/risks.yaml", line, column: 11, path: `records[0].records[${line}].Name` };
  return {
    key: [name],
    values: { Name: name },
    source,
    fields: { Name: source },
    ...(absent ? { ensure: "absent" as const } : {}),
  };
}

function planOf(
  entries: DesiredRecordEntry[],
  records: LiveRecord[],
  options: { prune?: boolean; allowDelete?: boolean } = {},
) {
  const document: DesiredRecords = {
    kind: "Record",
    application: "Risk Register",
    key: ["Name"],
    records: entries,
    ...(options.prune ? { prune: "delete" as const } : {}),
    source: { file: "manifests/risks.yaml", line: 2, column: 14 },
  };
  return planChanges(desired({ records: [document] }), live({ records: [{ ...LEVEL, records }] }), {
    createdAt: CREATED_AT,
    allowDelete: options.allowDelete ?? false,
  });
}

describe("record deletes", () => {
  it("ensure: absent deletes the one record its key matches, after every other step; none matching asks for nothing", () => {
    const plan = planOf(
      [entry(5, "Risk 3", true), entry(6, "Gone already", true), entry(7, "New risk")],
      risks(100),
    );
    expect(plan.changes.map((change) => [change.key, change.action, change.destructive])).toEqual([
      ['Risk Register "New risk"', "create", false],
      ['Risk Register "Risk 3"', "delete", true],
    ]);
    expect(plan.steps.map((step) => [step.op, step.input.contentId])).toEqual([
      ["record.create", undefined],
      ["record.delete", 2003],
    ]);
    expect(plan.steps[1]?.dependsOn).toEqual([plan.steps[0]?.id]);
  });

  it("refuses an absent entry whose key two records hold, naming both", () => {
    const twice = [...risks(100), { id: 3000, values: { Name: "Risk 3" } }];
    expect(() => planOf([entry(5, "Risk 3", true)], twice)).toThrow(
      expect.objectContaining({
        code: "EGP_RECORD_KEY_AMBIGUOUS",
        message: expect.stringContaining("content ids 2003, 3000"),
      }),
    );
  });

  it("prune: delete deletes the records no entry names, telling apart two with the same key by id", () => {
    const live = [...risks(3), { id: 3000, values: { Name: "Risk 2" } }, { id: 3001, values: { Name: " " } }];
    const plan = planOf([entry(5, "Risk 0"), entry(6, "Risk 1")], live, { prune: true, allowDelete: true });
    const records = plan.changes.filter((change) => change.kind === "Record");
    expect(records.map((change) => change.key)).toEqual([
      'Risk Register "Risk 2" (content id 2002)',
      'Risk Register "Risk 2" (content id 3000)',
      'Risk Register "" (content id 3001)',
    ]);
  });

  it("refuses more than 10 deletes, or more than 5% of a level, without --allow-delete", () => {
    const many = risks(400);
    const eleven = Array.from({ length: 11 }, (_, at) => entry(5 + at, `Risk ${at}`, true));
    expect(() => planOf(eleven, many)).toThrow(
      expect.objectContaining({
        code: "EGP_RECORD_DELETE_LIMIT",
        message: expect.stringMatching(
          /^manifests\/risks\.yaml:2:14 application: the plan deletes 11 of the 400 records/,
        ),
      }),
    );
    expect(planOf(eleven.slice(0, 10), many).summary.destroy).toBe(10);
    expect(() => planOf([entry(5, "Risk 0", true)], risks(19))).toThrow(
      expect.objectContaining({ code: "EGP_RECORD_DELETE_LIMIT" }),
    );
    expect(planOf([entry(5, "Risk 0", true)], risks(20)).summary.destroy).toBe(1);
    const allowed = planOf(eleven, many, { allowDelete: true });
    expect(allowed.changes.filter((change) => change.kind === "Record")).toHaveLength(11);
  });
});

import { describe, expect, it } from "vitest";
import { CREATED_AT, desired, live } from "../../test/builders/plan.ts";
import type { DesiredRecords } from "../manifest/kinds/record.ts";
import { planChanges } from "../plan/plan-changes.ts";
import type { LiveRecordLevel } from "../state/kinds/record.ts";
import { recordSnapshotOf } from "./record-snapshot.ts";

/*
 * The record snapshot an apply keeps, from the plan the record planner makes of a level built here:
 * Name (text, the key), Score (numeric), Category (values list: Technology 11, Legal 12, and a
 * value whose other text the Content API gives after the names).
 */

const LEVEL: LiveRecordLevel = {
  application: "Risk Register",
  levelId: 7,
  levelName: "Risk",
  entitySet: "Risk",
  fields: [
    { id: 101, name: "Name", alias: "Name", type: 1, values: [] },
    { id: 102, name: "Score", alias: "Score", type: 2, values: [] },
    {
      id: 104,
      name: "Category",
      alias: "Category",
      type: 4,
      values: [
        { id: 11, name: "Technology" },
        { id: 12, name: "Legal" },
      ],
    },
  ],
  records: [
    { id: 1002, values: { Name: "Cloud outage", Score: 12, Category: ["Technology", "other: cloud"] } },
  ],
};

const at = { file: "manifests/risks.yaml", line: 5, column: 3, path: "records[0].records[0]" };

function planOf(records: DesiredRecords["records"]) {
  const document: DesiredRecords = {
    kind: "Record",
    application: "Risk Register",
    key: ["Name"],
    records,
    source: at,
  };
  return planChanges(desired({ records: [document] }), live({ records: [LEVEL] }), { createdAt: CREATED_AT });
}

const entry = (values: Record<string, string | number | null>) => ({
  key: [String(values.Name)],
  values,
  source: at,
  fields: {},
});

describe("the record snapshot of a plan", () => {
  it("keeps an updated record's written fields with their values as read, values lists by id, and a created record without values before", () => {
    const plan = planOf([
      entry({ Name: "Cloud outage", Score: 15, Category: "Legal" }),
      entry({ Name: "Vendor breach", Score: 3 }),
    ]);
    const snapshot = recordSnapshotOf(plan, "2026-12-06T05:00:00.000Z");
    expect(snapshot?.records).toEqual([
      {
        step: 'Record/Risk Register "Cloud outage"#update',
        label: 'Risk Register "Cloud outage"',
        application: "Risk Register",
        levelId: 7,
        entitySet: "Risk",
        action: "updated",
        contentId: 1002,
        fields: [
          { fieldId: 102, type: 2, name: "Score", written: 15, prior: 12 },
          {
            fieldId: 104,
            type: 4,
            name: "Category",
            written: { ValuesListIds: [12], OtherText: null },
            prior: { ValuesListIds: [11], OtherText: "other: cloud" },
          },
        ],
      },
      {
        step: 'Record/Risk Register "Vendor breach"#create',
        label: 'Risk Register "Vendor breach"',
        application: "Risk Register",
        levelId: 7,
        entitySet: "Risk",
        action: "created",
        fields: [
          { fieldId: 101, type: 1, name: "Name", written: "Vendor breach" },
          { fieldId: 102, type: 2, name: "Score", written: 3 },
        ],
      },
    ]);
    expect(snapshot?.id).toMatch(/^[0-9a-f]{12}$/);
  });

  it("is none for a plan that writes no record", () => {
    expect(
      recordSnapshotOf(planOf([entry({ Name: "Cloud outage", Score: 12 })]), CREATED_AT),
    ).toBeUndefined();
  });
});

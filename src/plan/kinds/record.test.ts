import { describe, expect, it } from "vitest";
import { CREATED_AT, desired, live } from "../../../test/builders/plan.ts";
import type { DesiredRecordEntry, DesiredRecords, RecordFieldValue } from "../../manifest/kinds/record.ts";
import type { LiveRecord, LiveRecordLevel } from "../../state/kinds/record.ts";
import { planChanges } from "../plan-changes.ts";
import { recordSteps } from "./record-steps.ts";

/*
 * The record planner on a level built here: Name (text, the key), Score (numeric), Due (date),
 * Category (values list: Technology 11, Legal 12, Finance 13), Regions (values list: EU 21, US 22,
 * APAC 23), Owner (users/groups), Controls (cross-reference, not written yet).
 */

const LEVEL: LiveRecordLevel = {
  application: "Risk Register",
  levelId: 7,
  levelName: "Risk",
  entitySet: "Risk",
  fields: [
    { id: 101, name: "Name", alias: "Name", type: 1, values: [] },
    { id: 102, name: "Score", alias: "Score", type: 2, values: [] },
    { id: 103, name: "Due", alias: "Due", type: 3, values: [] },
    {
      id: 104,
      name: "Category",
      alias: "Category",
      type: 4,
      values: [
        { id: 11, name: "Technology" },
        { id: 12, name: "Legal" },
        { id: 13, name: "Finance" },
      ],
    },
    {
      id: 105,
      name: "Regions",
      alias: "Regions",
      type: 4,
      values: [
        { id: 21, name: "EU" },
        { id: 22, name: "US" },
        { id: 23, name: "APAC" },
      ],
    },
    { id: 106, name: "Owner", alias: "Owner", type: 8, values: [] },
    { id: 107, name: "Controls", alias: "Controls", type: 9, values: [] },
    { id: 108, name: "Heat Map", alias: "Heat_Map", type: 16, values: [] },
  ],
  records: [],
};

const OUTAGE: LiveRecord = {
  id: 1002,
  values: {
    Name: "Cloud outage",
    Score: 12,
    Due: "2027-01-31T00:00:00",
    Category: ["Technology"],
    Regions: ["US", "EU"],
  },
};

function entry(line: number, values: Record<string, RecordFieldValue>): DesiredRecordEntry {
  const at = (column: number, field: string) => ({
    file: "manifests/risks.yaml",
    line,
    column,
    path: `records[0].records[${line}]["${field}"]`,
  });
  return {
    key: [String(values.Name)],
    values,
    source: at(11, "Name"),
    fields: Object.fromEntries(Object.keys(values).map((field, index) => [field, at(11 + index, field)])),
  };
}

function planOf(entries: DesiredRecordEntry[], records: LiveRecord[] = [OUTAGE]) {
  const document: DesiredRecords = {
    kind: "Record",
    application: "Risk Register",
    key: ["Name"],
    records: entries,
    source: { file: "manifests/risks.yaml", line: 2, column: 14 },
  };
  return planChanges(desired({ records: [document] }), live({ records: [{ ...LEVEL, records }] }), {
    createdAt: CREATED_AT,
  });
}

describe("the record planner", () => {
  it("updates only the fields that differ: multi-valued fields as sets, dates by the date, omitted fields left alone", () => {
    const plan = planOf([
      entry(5, { Name: "Cloud outage", Score: 15, Due: "2027-01-31", Regions: ["EU", "US"] }),
    ]);
    expect(
      plan.changes.map((c) => [c.label, c.action, c.fields.map((f) => [f.field, f.before, f.after])]),
    ).toEqual([['Risk Register "Cloud outage"', "update", [["Score", 12, 15]]]]);
    const input = recordSteps.ops["record.update"].parse(plan.steps[0]?.input);
    expect(input).toMatchObject({
      contentId: 1002,
      levelId: 7,
      fields: [{ fieldId: 102, type: 2, value: 15 }],
    });
  });

  it("clears a field given null, and writes values lists by id while the plan shows names", () => {
    const plan = planOf([
      entry(5, { Name: "Cloud outage", Due: null, Category: "Legal", Regions: ["APAC"] }),
    ]);
    expect(plan.changes[0]?.fields.map((f) => [f.field, f.before, f.after])).toEqual([
      ["Due", "2027-01-31", null],
      ["Category", "Technology", "Legal"],
      ["Regions", ["US", "EU"], ["APAC"]],
    ]);
    expect(plan.steps[0]?.input).toMatchObject({
      fields: [
        { fieldId: 103, value: null },
        { fieldId: 104, value: { ValuesListIds: [12], OtherText: null } },
        { fieldId: 105, value: { ValuesListIds: [23], OtherText: null } },
      ],
    });
  });

  it("creates a record no live key matches, with the fields the entry gives", () => {
    const plan = planOf([entry(5, { Name: "Data leak", Category: "Legal" })]);
    expect(plan.changes.map((c) => [c.label, c.action])).toEqual([['Risk Register "Data leak"', "create"]]);
    expect(plan.steps[0]?.op).toBe("record.create");
  });

  it("refuses a key that matches a live record only when case is ignored, naming its id", () => {
    expect(() => planOf([entry(5, { Name: "cloud outage", Score: 1 })])).toThrow(
      expect.objectContaining({ code: "EGP_RECORD_KEY_AMBIGUOUS" }),
    );
    expect(() => planOf([entry(5, { Name: "cloud outage", Score: 1 })])).toThrow(
      /^manifests\/risks\.yaml:5:11 .*matches the record only when case is ignored \(content id 1002\)/,
    );
  });

  it("refuses a key two live records hold, though another entry is fine", () => {
    const twin = { id: 1900, values: { ...OUTAGE.values } };
    const plan = () =>
      planOf([entry(5, { Name: "Data leak" }), entry(6, { Name: "Cloud outage", Score: 3 })], [OUTAGE, twin]);
    expect(plan).toThrow(/manifests\/risks\.yaml:6:11 .*matches 2 records \(content ids 1002, 1900\)/);
  });

  it("refuses an unknown value name with the closest one, a field the level lacks, and a type not written yet", () => {
    expect(() => planOf([entry(5, { Name: "Cloud outage", Regions: ["EU", "Apac"] })])).toThrow(
      expect.objectContaining({ code: "EGP_RECORD_REF_UNRESOLVED" }),
    );
    expect(() => planOf([entry(5, { Name: "Cloud outage", Regions: ["EU", "Apac"] })])).toThrow(
      /risks\.yaml:5:12 .*no value "Apac" in the values list of "Regions"; did you mean "APAC"\?/,
    );
    expect(() => planOf([entry(5, { Name: "Cloud outage", Scores: 3 })])).toThrow(
      /risks\.yaml:5:12 .*"Risk Register" has no field "Scores" on prod; did you mean "Score"\?/,
    );
    expect(() => planOf([entry(5, { Name: "Cloud outage", "Heat Map": ["High"] })])).toThrow(
      /"Heat Map" is a matrix field, which Record documents do not write yet/,
    );
    expect(() => planOf([entry(5, { Name: "Cloud outage", Score: "high" })])).toThrow(
      /a numeric field takes a number/,
    );
  });
});

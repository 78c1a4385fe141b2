import { describe, expect, it } from "vitest";
import {
  CREATED_AT,
  desired,
  desiredPackage,
  environment,
  live,
  packageObject,
} from "../../../test/builders/plan.ts";
import type { DesiredRecordEntry, DesiredRecords, RecordFieldValue } from "../../manifest/kinds/record.ts";
import type { LiveRecordLevel } from "../../state/kinds/record.ts";
import type { LivePackageObject } from "../../state/live-state.ts";
import { planChanges } from "../plan-changes.ts";
import { recordSteps } from "./record-steps.ts";

/*
 * A Record document of a plan that also promotes a package: the target's Control level has Name
 * (text, the key) and Type (values list); the source's adds Tested (date), Result (values list:
 * Effective, Ineffective, each by GUID), Owner (users/groups) and a key-worthy Code (text).
 */

const APP = "a0000000-0000-0000-0000-000000000001";
const LEVEL_GUID = "b0000000-0000-0000-0000-000000000001";

const TARGET_LEVEL: LiveRecordLevel = {
  application: "Controls",
  levelId: 70,
  levelName: "Control",
  entitySet: "Control",
  fields: [
    { id: 701, name: "Name", alias: "Name", type: 1, values: [] },
    { id: 702, name: "Type", alias: "Type", type: 4, values: [{ id: 31, name: "Preventive" }] },
  ],
  records: [{ id: 1003, values: { Name: "AC-2", Type: ["Preventive"] } }],
};

const field = (guid: string, name: string, type: number, values: string[] = []) => ({
  guid,
  name,
  alias: name,
  level: LEVEL_GUID,
  type,
  active: true,
  values: values.map((value, at) => ({ guid: `${guid}-v${at}`, name: value })),
});

const SOURCE_PARTS = { "field:f-name": "n1", "field:f-result": "r1" };

function sourceObject(): LivePackageObject {
  return {
    ...packageObject(APP, "Controls", "source-fingerprint", SOURCE_PARTS),
    members: {
      levels: [{ guid: LEVEL_GUID, name: "Control", alias: "Control" }],
      fields: [
        field("f-name", "Name", 1),
        field("f-type", "Type", 4, ["Preventive"]),
        field("f-tested", "Tested", 3),
        field("f-result", "Result", 4, ["Effective", "Ineffective"]),
        field("f-owner", "Owner", 8),
        field("f-code", "Code", 1),
      ],
    },
  };
}

function entry(line: number, values: Record<string, RecordFieldValue>): DesiredRecordEntry {
  const at = (column: number, name: string) => ({
    file: "manifests/controls.yaml",
    line,
    column,
    path: `records[0].records[${line}]["${name}"]`,
  });
  return {
    key: [String(values.Name)],
    values,
    source: at(9, "Name"),
    fields: Object.fromEntries(Object.keys(values).map((name, index) => [name, at(9 + index * 10, name)])),
  };
}

function planOf(
  entries: DesiredRecordEntry[],
  options: {
    promote?: boolean;
    key?: string[];
    level?: string;
    read?: LiveRecordLevel;
    source?: LivePackageObject;
    targets?: string[];
  } = {},
) {
  const document: DesiredRecords = {
    kind: "Record",
    application: "Controls",
    ...(options.level ? { level: options.level } : {}),
    key: options.key ?? ["Name"],
    records: entries,
    source: { file: "manifests/controls.yaml", line: 2, column: 14 },
  };
  const promote = options.promote !== false;
  const target = promote
    ? packageObject(APP, "Controls", "target-fingerprint", { "field:f-name": "n1" })
    : packageObject(APP, "Controls", "source-fingerprint", SOURCE_PARTS);
  return planChanges(
    desired({
      records: [document],
      packages: [desiredPackage("Control Pack", ["Controls"])],
      packagesFrom: environment("dev"),
    }),
    live({
      records: [options.read ?? TARGET_LEVEL],
      packages: { objects: { [APP]: target }, applicationsByName: { controls: APP } },
      packageSource: {
        environment: "dev",
        objects: { [APP]: options.source ?? sourceObject() },
        applicationsByName: { controls: APP },
      },
    }),
    { createdAt: CREATED_AT, ...(options.targets ? { targets: options.targets } : {}) },
  );
}

describe("Record documents naming fields a package of the same plan adds", () => {
  it("plans an update by GUIDs, after the package's install, with the field shown as the package's", () => {
    const plan = planOf([
      entry(5, { Name: "AC-2", Type: "Preventive", Tested: "2026-11-30", Result: "Effective" }),
    ]);
    const change = plan.changes.find((c) => c.kind === "Record");
    expect(change?.fields.map((f) => [f.field, f.before, f.after])).toEqual([
      ["Tested", null, "2026-11-30"],
      ["Result", null, "Effective"],
    ]);
    expect(change?.notes).toEqual(['"Tested", "Result": added by package "Control Pack" of this plan']);
    const step = plan.steps.find((s) => s.op === "record.update");
    const input = recordSteps.ops["record.update"].parse(step?.input);
    expect(input.fields).toEqual([]);
    expect(input.prior).toEqual([]);
    expect(input.packaged).toEqual([
      { guid: "f-tested", name: "Tested", type: 3, value: "2026-11-30" },
      {
        guid: "f-result",
        name: "Result",
        type: 4,
        value: { ValuesListGuids: [{ guid: "f-result-v0", name: "Effective" }], OtherText: null },
      },
    ]);
    // No id of the plan is a placeholder: every id written is the target's.
    expect(JSON.stringify(step?.input)).not.toMatch(/[:[,]-\d/);
    const install = plan.steps.find((s) => s.op === "package.install");
    const order = plan.steps.map((s) => s.id);
    expect(install).toBeDefined();
    expect(order.indexOf(step?.id ?? "")).toBeGreaterThan(order.indexOf(install?.id ?? ""));
    expect(step?.dependsOn).toEqual([
      plan.steps.filter((s) => s.change === "Package/Control Pack").at(-1)?.id,
    ]);
  });

  it("plans a create with the target's fields by id and the package's by GUID", () => {
    const plan = planOf([entry(5, { Name: "AC-9", Type: "Preventive", Result: ["Ineffective"] })]);
    const step = plan.steps.find((s) => s.op === "record.create");
    const input = recordSteps.ops["record.create"].parse(step?.input);
    expect(input.fields).toEqual([
      { fieldId: 701, type: 1, value: "AC-9" },
      { fieldId: 702, type: 4, value: { ValuesListIds: [31], OtherText: null } },
    ]);
    expect(input.packaged).toEqual([
      {
        guid: "f-result",
        name: "Result",
        type: 4,
        value: { ValuesListGuids: [{ guid: "f-result-v1", name: "Ineffective" }], OtherText: null },
      },
    ]);
  });

  it("leaves a record alone that names no field of the package", () => {
    const plan = planOf([entry(5, { Name: "AC-9", Type: "Preventive" })]);
    const input = plan.steps.find((s) => s.op === "record.create")?.input;
    expect(input).not.toHaveProperty("packaged");
    expect(plan.changes.find((c) => c.kind === "Record")?.notes).toEqual([]);
  });

  it("refuses a name in neither, with did-you-mean over the target's fields and the package's", () => {
    expect(() => planOf([entry(5, { Name: "AC-2", Resutl: "Effective" })])).toThrow(
      /controls\.yaml:5:19 .*"Controls" has no field "Resutl" on prod, nor does package "Control Pack" of this plan add one; did you mean "Result"\?/,
    );
    expect(() => planOf([entry(5, { Name: "AC-2", Result: "Efective" })])).toThrow(
      /controls\.yaml:5:19 .*no value "Efective" in the values list of "Result"; did you mean "Effective"\?/,
    );
  });

  it("refuses the package's fields when the plan does not install the package, or does not target it", () => {
    expect(() => planOf([entry(5, { Name: "AC-2", Result: "Effective" })], { promote: false })).toThrow(
      /"Controls" has no field "Result" on prod$/,
    );
    const values = { Name: "AC-2", Result: "Effective" };
    expect(() => planOf([entry(5, values)], { targets: ["Record/Controls*"] })).toThrow(
      /"Controls" has no field "Result" on prod$/,
    );
    const both = planOf([entry(5, values)], { targets: ["Record/Controls*", "Package/Control Pack"] });
    expect(both.changes.map((change) => change.id)).toEqual([
      "Package/Control Pack",
      'Record/Controls "AC-2"',
    ]);
  });

  it("refuses a key field or a users/groups field the package adds, saying to apply the package first", () => {
    expect(() => planOf([entry(5, { Name: "AC-2", Code: "X" })], { key: ["Code"] })).toThrow(
      /key: the key field "Code" is not on prod yet: package "Control Pack" of this plan adds it/,
    );
    expect(() => planOf([entry(5, { Name: "AC-2", Owner: { users: ["anguyen"] } })])).toThrow(
      /"Owner" is a users\/groups field that package "Control Pack" of this plan adds; .*apply the package first/,
    );
  });

  it("plans creates in a level the package adds, by the level's GUID and its application's", () => {
    const read: LiveRecordLevel = { application: "Controls", missing: "application" };
    const plan = planOf([entry(5, { Name: "AC-9", Result: "Effective" })], { read });
    const step = plan.steps.find((s) => s.op === "record.create");
    const input = recordSteps.ops["record.create"].parse(step?.input);
    expect(input.levelId).toBeUndefined();
    expect(input).toMatchObject({
      level: { guid: LEVEL_GUID, name: "Control", application: APP },
      entitySet: "Control",
      keyAliases: ["Name"],
      fields: [],
      packaged: [
        { guid: "f-name", name: "Name", type: 1, value: "AC-9" },
        { guid: "f-result", value: { ValuesListGuids: [{ guid: "f-result-v0", name: "Effective" }] } },
      ],
    });
    expect(JSON.stringify(step?.input)).not.toMatch(/[:[,]-\d/);
    expect(step?.dependsOn).toEqual([
      plan.steps.filter((s) => s.change === "Package/Control Pack").at(-1)?.id,
    ]);
    expect(plan.changes.find((c) => c.kind === "Record")?.notes).toEqual([
      'level "Control" and its fields "Name", "Result": added by package "Control Pack" of this plan',
    ]);
  });

  it("asks for `level:` when the application the package adds has more than one level", () => {
    const source = sourceObject();
    const members = source.members as NonNullable<LivePackageObject["members"]>;
    const two = { ...members, levels: [...members.levels, { guid: "b2", name: "Test", alias: "Test" }] };
    const read: LiveRecordLevel = { application: "Controls", missing: "application" };
    expect(() => planOf([entry(5, { Name: "AC-9" })], { read, source: { ...source, members: two } })).toThrow(
      /no application "Controls" on prod: package "Control Pack" of this plan adds it with 2 levels \("Control", "Test"\); name the level with `level:`/,
    );
    const planned = planOf([entry(5, { Name: "AC-9" })], {
      read: { ...read, level: "Control" },
      level: "Control",
      source: { ...source, members: two },
    });
    expect(planned.steps.find((s) => s.op === "record.create")?.input).toMatchObject({
      level: { guid: LEVEL_GUID },
    });
  });

  it("refuses a level the package does not add, and an application not on the target without the package", () => {
    const read: LiveRecordLevel = { application: "Controls", level: "Test", missing: "level" };
    expect(() => planOf([entry(5, { Name: "AC-9" })], { read, level: "Test" })).toThrow(
      /application: no level "Test" in "Controls" on prod$/,
    );
    const missing: LiveRecordLevel = { application: "Controls", missing: "application" };
    expect(() => planOf([entry(5, { Name: "AC-9" })], { read: missing, promote: false })).toThrow(
      /application: no application "Controls" on prod$/,
    );
  });
});

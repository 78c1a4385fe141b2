import { describe, expect, it } from "vitest";
import { CREATED_AT, desired, live } from "../../../test/builders/plan.ts";
import type { DesiredRecordEntry, DesiredRecords, RecordFieldValue } from "../../manifest/kinds/record.ts";
import type { LiveRecord, LiveRecordLevel } from "../../state/kinds/record.ts";
import type { LiveRecordTarget } from "../../state/kinds/record-targets.ts";
import { planChanges } from "../plan-changes.ts";
import { readPlanFile, writePlanFile } from "../plan-file.ts";
import { renderText } from "../render/text.ts";
import { recordSteps } from "./record-steps.ts";

/*
 * References by key on levels built here: Controls (level 20: Control Name, the key; Mitigated
 * Risks, related records of level 7; Policies, a cross-reference to level 9; Objective, text) and
 * Risk Register (level 7: Risk Name; records 1002 "Cloud provider outage", 1004 "Privileged access
 * misuse").
 * Policies (level 9: Policy Name; record 1005 "Information Security Policy") is read for references
 * alone, as no document manages it.
 */

const CONTROLS: LiveRecordLevel = {
  application: "Controls",
  levelId: 20,
  levelName: "Control",
  entitySet: "Control",
  fields: [
    { id: 201, name: "Control Name", alias: "Control_Name", type: 1, values: [] },
    { id: 202, name: "Mitigated Risks", alias: "Mitigated_Risks", type: 23, values: [], references: [7] },
    { id: 203, name: "Policies", alias: "Policies", type: 9, values: [], references: [9] },
    { id: 205, name: "Objective", alias: "Objective", type: 1, values: [] },
  ],
  records: [{ id: 1003, values: { Control_Name: "AC-2", Mitigated_Risks: [1002], Policies: null } }],
};

const RECORDS: LiveRecord[] = [
  { id: 1002, values: { Risk_Name: "Cloud provider outage" } },
  { id: 1004, values: { Risk_Name: "Privileged access misuse" } },
];

const RISKS: LiveRecordLevel = {
  application: "Risk Register",
  levelId: 7,
  levelName: "Risk",
  entitySet: "Risk",
  fields: [{ id: 101, name: "Risk Name", alias: "Risk_Name", type: 1, values: [] }],
  records: RECORDS,
};

const POLICIES: LiveRecordTarget = {
  levelId: 9,
  application: "Policies",
  levelName: "Policy",
  entitySet: "Policy",
  fields: [{ name: "Policy Name", alias: "Policy_Name" }],
  records: [{ id: 1005, values: { Policy_Name: "Information Security Policy" } }],
};

const FILE = "manifests/controls.yaml";

function entry(key: string, name: string, line: number, values: Record<string, RecordFieldValue>) {
  const at = (column: number, field: string) => ({
    file: FILE,
    line,
    column,
    path: `records[0]["${field}"]`,
  });
  const all = { [name]: key, ...values };
  return {
    key: [key],
    values: all,
    source: at(7, name),
    fields: Object.fromEntries(Object.keys(all).map((field, index) => [field, at(7 + index * 10, field)])),
  } satisfies DesiredRecordEntry;
}

const controls = (entries: DesiredRecordEntry[], keys?: DesiredRecords["keys"]): DesiredRecords => ({
  kind: "Record",
  application: "Controls",
  key: ["Control Name"],
  ...(keys ? { keys } : {}),
  records: entries,
  source: { file: FILE, line: 2, column: 14 },
});

const risks = (entries: DesiredRecordEntry[]): DesiredRecords => ({
  kind: "Record",
  application: "Risk Register",
  key: ["Risk Name"],
  records: entries,
  source: { file: "manifests/risks.yaml", line: 2, column: 14 },
});

const POLICY_KEYS = [
  {
    target: "Policies",
    fields: ["Policy Name"],
    source: { file: FILE, line: 3, column: 18, path: "keys.Policies" },
  },
];

function planOf(
  documents: DesiredRecords[],
  options: { risks?: LiveRecord[]; targets?: LiveRecordTarget[] } = {},
) {
  const levels = documents.map((document) =>
    document.application === "Controls" ? CONTROLS : { ...RISKS, records: options.risks ?? RECORDS },
  );
  return planChanges(
    desired({ records: documents }),
    live({ records: levels, recordTargets: options.targets ?? [POLICIES] } as Parameters<typeof live>[0]),
    { createdAt: CREATED_AT },
  );
}

describe("references by key", () => {
  it("writes content ids and shows keys, comparing references as sets", () => {
    const plan = planOf(
      [
        controls(
          [
            entry("AC-2", "Control Name", 5, {
              "Mitigated Risks": ["Privileged access misuse", "Cloud provider outage"],
              Policies: "Information Security Policy",
            }),
          ],
          POLICY_KEYS,
        ),
        risks([]),
      ],
      {},
    );
    const input = recordSteps.ops["record.update"].parse(plan.steps[0]?.input);
    expect(input.fields).toEqual([
      {
        fieldId: 202,
        type: 23,
        value: {
          references: [
            { contentId: 1004, levelId: 7 },
            { contentId: 1002, levelId: 7 },
          ],
        },
      },
      { fieldId: 203, type: 9, value: { references: [{ contentId: 1005, levelId: 9 }] } },
    ]);
    const text = renderText(plan);
    expect(text).toContain(
      '~ Mitigated Risks: Risk Register "Cloud provider outage" -> [Risk Register "Privileged access misuse", Risk Register "Cloud provider outage"]',
    );
    expect(text).toContain('~ Policies: [] -> Policies "Information Security Policy"');
    expect(text).not.toMatch(/100[0-9]/);

    // The same references in another order, and the live ones: nothing to do.
    const same = planOf([
      controls([entry("AC-2", "Control Name", 5, { "Mitigated Risks": ["Cloud provider outage"] })]),
      risks([]),
    ]);
    expect(same.changes).toEqual([]);
  });

  it("orders a record after the create of a record it references, naming the creating step", () => {
    const plan = planOf([
      controls([
        entry("AC-9", "Control Name", 5, { "Mitigated Risks": ["Data leak", "Cloud provider outage"] }),
      ]),
      risks([entry("Data leak", "Risk Name", 9, {})]),
    ]);
    const createRisk = plan.steps.find((step) => step.change === 'Record/Risk Register "Data leak"');
    const createControl = plan.steps.find((step) => step.change === 'Record/Controls "AC-9"');
    expect(createRisk?.id).toBe('Record/Risk Register "Data leak"#create');
    expect(createControl?.dependsOn).toContain(createRisk?.id);
    expect(plan.steps.indexOf(createControl as never)).toBeGreaterThan(
      plan.steps.indexOf(createRisk as never),
    );
    const input = recordSteps.ops["record.create"].parse(createControl?.input);
    expect(input.fields[1]?.value).toEqual({
      references: [
        { step: createRisk?.id, levelId: 7 },
        { contentId: 1002, levelId: 7 },
      ],
    });
    expect(renderText(plan)).toContain(
      '+ Mitigated Risks: [Risk Register "Data leak", Risk Register "Cloud provider outage"]',
    );

    // A saved plan carries the reference by the creating step, and its check takes it.
    expect(readPlanFile(writePlanFile(plan)).steps).toEqual(plan.steps);

    // A plan targeting the control keeps the create it waits for.
    const targeted = planChanges(
      desired({
        records: [
          controls([entry("AC-9", "Control Name", 5, { "Mitigated Risks": "Data leak" })]),
          risks([entry("Data leak", "Risk Name", 9, {}), entry("Fraud", "Risk Name", 10, {})]),
        ],
      }),
      live({ records: [CONTROLS, RISKS] }),
      { createdAt: CREATED_AT, targets: ['Record/Controls "AC-9"'] },
    );
    expect(targeted.steps.map((step) => step.id)).toEqual([
      'Record/Risk Register "Data leak"#create',
      'Record/Controls "AC-9"#create',
    ]);
  });

  it("refuses a key no record has (and no create of the plan), naming it at its file:line:col", () => {
    const plan = () =>
      planOf([
        controls([entry("AC-2", "Control Name", 5, { "Mitigated Risks": ["Cloud provider outages"] })]),
        risks([]),
      ]);
    expect(plan).toThrow(expect.objectContaining({ code: "EGP_RECORD_REF_UNRESOLVED" }));
    expect(plan).toThrow(
      /^manifests\/controls\.yaml:5:17 .*no "Risk Register" record has the key "Cloud provider outages" on prod, and this plan creates none; did you mean "Cloud provider outage"\?$/,
    );
  });

  it("refuses a key two records hold, or one only when case is ignored, naming their ids", () => {
    const twin = { id: 1900, values: { Risk_Name: "Cloud provider outage" } };
    const two = () =>
      planOf(
        [
          controls([entry("AC-2", "Control Name", 5, { "Mitigated Risks": "Cloud provider outage" })]),
          risks([]),
        ],
        { risks: [...RECORDS, twin] },
      );
    expect(two).toThrow(expect.objectContaining({ code: "EGP_RECORD_KEY_AMBIGUOUS" }));
    expect(two).toThrow(/matches 2 "Risk Register" records \(content ids 1002, 1900\)/);
    const cased = () =>
      planOf([
        controls([entry("AC-2", "Control Name", 5, { "Mitigated Risks": "cloud provider outage" })]),
        risks([]),
      ]);
    expect(cased).toThrow(/matches the "Risk Register" record only when case is ignored \(content id 1002\)/);
  });

  it("refuses a referenced application whose key no document gives, and a keys: field it lacks", () => {
    const unkeyed = () =>
      planOf([controls([entry("AC-2", "Control Name", 5, { Policies: "Information Security Policy" })])]);
    expect(unkeyed).toThrow(expect.objectContaining({ code: "EGP_PLAN_INVALID" }));
    expect(unkeyed).toThrow(
      /controls\.yaml:5:17 .*"Policies": its records are "Policies" records, whose key is not known: give "Policies" a Record document, or name its key fields in this document's keys: \{ Policies: \[<field>\] \}/,
    );
    const misnamed = () =>
      planOf([
        controls(
          [entry("AC-2", "Control Name", 5, { Policies: "Information Security Policy" })],
          [{ ...(POLICY_KEYS[0] as NonNullable<DesiredRecords["keys"]>[number]), fields: ["Policy Nam"] }],
        ),
      ]);
    expect(misnamed).toThrow(
      /controls\.yaml:3:18 .*"Policies" has no field "Policy Nam" on prod; did you mean "Policy Name"\?/,
    );
  });

  it("takes a key of several fields as a mapping, and refuses a reference of another form", () => {
    const regional: LiveRecordTarget = {
      ...POLICIES,
      fields: [...POLICIES.fields, { name: "Region", alias: "Region" }],
      records: [
        { id: 1005, values: { Policy_Name: "Information Security Policy", Region: "EU" } },
        { id: 1006, values: { Policy_Name: "Information Security Policy", Region: "US" } },
      ],
    };
    const keys = [
      {
        ...(POLICY_KEYS[0] as NonNullable<DesiredRecords["keys"]>[number]),
        fields: ["Policy Name", "Region"],
      },
    ];
    const planWith = (value: RecordFieldValue) =>
      planOf([controls([entry("AC-2", "Control Name", 5, { Policies: value })], keys)], {
        targets: [regional],
      });
    const input = recordSteps.ops["record.update"].parse(
      planWith({ Region: "US", "Policy Name": "Information Security Policy" }).steps[0]?.input,
    );
    expect(input.fields[0]?.value).toEqual({ references: [{ contentId: 1006, levelId: 9 }] });
    expect(() => planWith("Information Security Policy")).toThrow(
      /a reference to "Policies" records is written as \{ Policy Name: …, Region: … \}, not "Information Security Policy"/,
    );
    // A mapping is a reference's form, not a text field's.
    expect(() => planOf([controls([entry("AC-2", "Control Name", 5, { Objective: { x: "y" } })])])).toThrow(
      /"Objective"\]: a text field takes one value/,
    );
  });

  it("refuses records the plan creates that reference each other", () => {
    const level = { ...CONTROLS, records: [] };
    const plan = () =>
      planChanges(
        desired({
          records: [controls([entry("AC-8", "Control Name", 5, {}), entry("AC-9", "Control Name", 6, {})])],
        }),
        live({ records: [level] }),
        { createdAt: CREATED_AT },
      );
    expect(plan().changes).toHaveLength(2);
    // A control referencing itself through a field of its own level.
    const selfLevel: LiveRecordLevel = {
      ...level,
      fields: [
        ...level.fields,
        { id: 204, name: "Parent", alias: "Parent", type: 9, values: [], references: [20] },
      ],
    };
    const cyclic = () =>
      planChanges(
        desired({
          records: [
            controls([
              entry("AC-8", "Control Name", 5, { Parent: "AC-9" }),
              entry("AC-9", "Control Name", 6, { Parent: "AC-8" }),
            ]),
          ],
        }),
        live({ records: [selfLevel] }),
        { createdAt: CREATED_AT },
      );
    expect(cyclic).toThrow(
      /controls\.yaml:5:7:? .*Record Controls "AC-8" and Record Controls "AC-9" reference each other, and this plan creates them all/,
    );
  });
});

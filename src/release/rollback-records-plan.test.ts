import { describe, expect, it } from "vitest";
import type { PlatformClient } from "../client/client.ts";
import type { FieldDefinition } from "../wire/index.ts";
import type { RecordSnapshot, SnapshotRecord } from "./record-snapshot.ts";
import { planRecordRollback } from "./rollback-records-plan.ts";

/*
 * What a rollback of a record snapshot decides, against records held here: level 7 "Risk" (Name
 * text, Category values list Technology 11 / Legal 12, Evidence attachment) and level 8 "Control"
 * (Risks, related records pointing at level 7).
 */

function definition(
  id: number,
  name: string,
  type: number,
  more: Partial<FieldDefinition> = {},
): FieldDefinition {
  return {
    Id: id,
    Guid: `guid-${id}`,
    Alias: name,
    Name: name,
    LevelId: Math.floor(id / 100),
    Type: type,
    IsActive: true,
    IsRequired: false,
    Description: null,
    ValuesListValues: [],
    ReferencedLevelIds: [],
    RelatedSubformId: null,
    Translations: [],
    UpdateInformation: null,
    ...more,
  } as FieldDefinition;
}

const value = (id: number, name: string) =>
  ({ Id: id, Name: name }) as FieldDefinition["ValuesListValues"][number];

const FIELDS: Record<number, FieldDefinition[]> = {
  7: [
    definition(701, "Name", 1),
    definition(702, "Category", 4, { ValuesListValues: [value(11, "Technology"), value(12, "Legal")] }),
    definition(703, "Evidence", 11),
  ],
  8: [definition(801, "Risks", 23, { ReferencedLevelIds: [7] })],
};

function fakeClient(
  records: Record<string, Array<Record<string, unknown>>>,
  fields: Record<number, FieldDefinition[]> = FIELDS,
): PlatformClient {
  const levels = [
    { Id: 7, Name: "Risk", Alias: "Risk", ModuleName: "Risk Register", IsDeleted: false },
    { Id: 8, Name: "Control", Alias: "Control", ModuleName: "Controls", IsDeleted: false },
  ];
  const fake = {
    metadata: {
      levels: async () => levels,
      fieldDefinitions: async (levelId: number) => fields[levelId] ?? [],
    },
    contentApi: {
      allRecords: async (entitySet: string) => records[entitySet] ?? [],
    },
  };
  return fake as unknown as PlatformClient;
}

const written = (category: number) => ({ ValuesListIds: [category], OtherText: null });

function updated(fields: SnapshotRecord["fields"]): SnapshotRecord {
  const base = { application: "Risk Register", levelId: 7, entitySet: "Risk" };
  return { ...base, step: "s1", label: 'Risk Register "Outage"', action: "updated", contentId: 1, fields };
}

function created(id: number, name: string): SnapshotRecord {
  const base = { application: "Risk Register", levelId: 7, entitySet: "Risk" };
  const fields = [{ fieldId: 701, type: 1, name: "Name", written: name }];
  return {
    ...base,
    step: `s${id}`,
    label: `Risk Register "${name}"`,
    action: "created",
    contentId: id,
    fields,
  };
}

const snapshot = (records: SnapshotRecord[]): RecordSnapshot => ({
  formatVersion: 1,
  id: "0123456789ab",
  environment: "prod",
  plan: "plan",
  takenAt: "2026-12-06T05:00:00.000Z",
  records,
});

describe("a rollback of a record snapshot", () => {
  it("restores what still holds the apply's value, names later edits as conflicts, says what is back already, and names an attachment as not restorable", async () => {
    const client = fakeClient({
      Risk: [{ Risk_Id: 1, Name: "Outage (edited)", Category: ["Technology"], Evidence: [5] }],
    });
    const plan = await planRecordRollback(
      client,
      snapshot([
        updated([
          { fieldId: 701, type: 1, name: "Name", written: "Outage", prior: "Old outage" },
          { fieldId: 702, type: 4, name: "Category", written: written(12), prior: written(11) },
          { fieldId: 703, type: 11, name: "Evidence", written: null, prior: null },
        ]),
      ]),
    );
    expect(plan.conflicts).toEqual([
      'Record Risk Register "Outage": "Name" holds "Outage (edited)" now, not "Outage" as the apply wrote; left as it is',
    ]);
    expect(plan.restored).toEqual([
      'Record Risk Register "Outage": "Category" is back to ["Technology"] already',
    ]);
    expect(plan.notRestorable).toEqual([
      'Record Risk Register "Outage": "Evidence", an attachment field, left as the apply wrote it',
    ]);
    expect(plan.restores).toEqual([]);
  });

  it("writes back the values as read, values lists by id", async () => {
    const client = fakeClient({ Risk: [{ Risk_Id: 1, Name: "Outage", Category: ["Legal"] }] });
    const plan = await planRecordRollback(
      client,
      snapshot([
        updated([
          { fieldId: 701, type: 1, name: "Name", written: "Outage", prior: null },
          { fieldId: 702, type: 4, name: "Category", written: written(12), prior: written(11) },
        ]),
      ]),
    );
    expect(plan.restores.map((restore) => restore.fields)).toEqual([
      [
        { fieldId: 701, type: 1, value: null },
        { fieldId: 702, type: 4, value: written(11) },
      ],
    ]);
    expect(plan.conflicts).toEqual([]);
  });

  it("deletes created records that only other deleted records reference, and keeps one a staying record references", async () => {
    const client = fakeClient({
      Risk: [
        { Risk_Id: 21, Name: "A" },
        { Risk_Id: 22, Name: "B" },
        { Risk_Id: 23, Name: "C" },
      ],
      // Control 31 stays, and cites 23.
      Control: [{ Control_Id: 31, Risks: [23] }],
    });
    const plan = await planRecordRollback(
      client,
      snapshot([created(21, "A"), created(22, "B"), created(23, "C")]),
    );
    expect(plan.removals.map((removal) => removal.contentId)).toEqual([21, 22]);
    expect(plan.kept).toEqual([
      'Record Risk Register "C" (content id 23): referenced by Controls record 31 ("Risks")',
    ]);
  });

  it("deletes a created record referenced only by another record it deletes, and says one already gone", async () => {
    const parent = definition(704, "Parent", 9, { ReferencedLevelIds: [7] });
    const client = fakeClient(
      {
        Risk: [
          { Risk_Id: 21, Name: "A", Parent: [22] },
          { Risk_Id: 22, Name: "B", Parent: null },
        ],
      },
      { 7: [...(FIELDS[7] ?? []), parent] },
    );
    const plan = await planRecordRollback(
      client,
      snapshot([created(21, "A"), created(22, "B"), created(24, "D")]),
    );
    expect(plan.removals.map((removal) => removal.contentId)).toEqual([21, 22]);
    expect(plan.deleted).toContain('Record Risk Register "D" (content id 24): already gone');
    expect(plan.kept).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import { FieldType } from "../wire/index.ts";
import { type RecordExportInput, recordDocument } from "./records.ts";

/* The Record document the exporter writes from a level's records: the manifest forms, by name and by key. */

const input = (over: Partial<RecordExportInput> = {}): RecordExportInput => ({
  environment: "prod",
  application: "Controls",
  key: ["Control Name"],
  fields: [
    { name: "Control Name", alias: "Name", type: FieldType.Text, values: [] },
    { name: "Type", alias: "Type", type: FieldType.ValuesList, values: [{ id: 1, name: "Preventive" }] },
    { name: "Owner", alias: "Owner", type: FieldType.UsersGroups, values: [] },
    { name: "Risks", alias: "Risks", type: FieldType.RelatedRecords, values: [] },
    { name: "Notes", alias: "Notes", type: FieldType.SubForm, values: [] },
  ],
  records: [
    {
      id: 7,
      values: {
        Name: "AC-3",
        Type: ["Preventive"],
        Owner: { UserList: [{ Id: 2 }], GroupList: [{ Id: 5 }] },
        Risks: [11, 12],
      },
    },
    { id: 3, values: { Name: " AC-1 ", Type: ["Preventive", "Other text"], Owner: null, Risks: null } },
  ],
  users: new Map([[2, "anguyen"]]),
  groups: new Map([[5, "Risk Owners"]]),
  targets: new Map([
    [
      "Risks",
      {
        keysEntry: "Risk Register",
        key: ["Risk Name"],
        keys: new Map([
          [11, ["Cloud outage"]],
          [12, ["Misuse"]],
        ]),
      },
    ],
  ]),
  ...over,
});

describe("recordDocument", () => {
  it("writes values by name, references by key with a keys: entry, sorted by key", () => {
    const { document, leftOutFields, warnings } = recordDocument(input());
    expect(document).toEqual({
      kind: "Record",
      application: "Controls",
      environments: ["prod"],
      key: ["Control Name"],
      keys: { "Risk Register": ["Risk Name"] },
      records: [
        { "Control Name": "AC-1" },
        {
          "Control Name": "AC-3",
          Type: "Preventive",
          Owner: { users: ["anguyen"], groups: ["Risk Owners"] },
          Risks: ["Cloud outage", "Misuse"],
        },
      ],
    });
    expect(leftOutFields).toEqual(["Notes (sub-form)"]);
    expect(warnings).toEqual([
      'Record Controls "AC-1": Type left out: it holds other text ("Other text"), which is no value of its list',
    ]);
  });

  it("writes a reference into a target of several key fields as a map, and no keys: entry where the repository gives it", () => {
    const { document } = recordDocument(
      input({
        targets: new Map([
          [
            "Risks",
            {
              key: ["Risk Name", "Year"],
              keys: new Map([
                [11, ["Cloud outage", "2026"]],
                [12, ["Misuse", "2025"]],
              ]),
            },
          ],
        ]),
      }),
    );
    expect(document.keys).toBeUndefined();
    expect((document.records as Record<string, unknown>[])[1]?.Risks).toEqual([
      { "Risk Name": "Cloud outage", Year: "2026" },
      { "Risk Name": "Misuse", Year: "2025" },
    ]);
  });

  it("leaves out a value naming a user the account can't read, and a reference to a record it can't read", () => {
    const { document, warnings } = recordDocument(
      input({ users: new Map(), targets: new Map([["Risks", { key: ["Risk Name"], keys: new Map() }]]) }),
    );
    expect((document.records as Record<string, unknown>[])[1]).toEqual({
      "Control Name": "AC-3",
      Type: "Preventive",
    });
    expect(warnings.slice(1)).toEqual([
      'Record Controls "AC-3": Owner left out: it names users or groups the account can\'t read (ids 2)',
      'Record Controls "AC-3": Risks left out: it references records the account can\'t read (content ids 11, 12)',
    ]);
  });

  it("refuses records without a key value, naming them", () => {
    const records = [{ id: 9, values: { Name: "" } }, ...input().records];
    expect(() => recordDocument(input({ records }))).toThrow(
      'export: a record has no value in a key field in "Controls" on prod (content id 9)',
    );
  });
});

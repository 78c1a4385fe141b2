import { describe, expect, it } from "vitest";
import type { DesiredRecords } from "../../manifest/kinds/record.ts";
import { hash } from "../digest.ts";
import { digestScope, recordsDigest } from "./record-digest.ts";

/* The records' digest of a level: Name (the key), Score and Due; the document manages Score of "Outage". */

const FIELDS = [
  { id: 1, name: "Name", alias: "Name", type: 1, values: [] },
  { id: 2, name: "Score", alias: "Score", type: 2, values: [] },
  { id: 3, name: "Due", alias: "Due", type: 3, values: [] },
];

const source = { file: "manifests/risks.yaml", line: 5, column: 11, path: "records[0].records[0].Name" };

const DOCUMENT: DesiredRecords = {
  kind: "Record",
  application: "Risk Register",
  key: ["Name"],
  records: [
    { key: ["Outage"], values: { Name: "Outage", Score: 3 }, source, fields: {} },
    { key: ["Fraud"], values: { Name: "Fraud", Due: "2027-01-01" }, source, fields: {} },
  ],
  source,
};

const level = (records: Array<{ id: number; values: Record<string, unknown> }>) => ({
  application: "Risk Register",
  levelId: 7,
  levelName: "Risk",
  entitySet: "Risk",
  fields: FIELDS,
  records,
  scope: digestScope(DOCUMENT, FIELDS),
});

const BASE = [
  { id: 1, values: { Name: "Outage", Score: 2, Due: "2026-01-01" } },
  { id: 2, values: { Name: "Leak", Score: 5, Due: "2026-02-01" } },
];

const digestOf = (change: (records: typeof BASE) => void) => {
  const records = structuredClone(BASE);
  change(records);
  return recordsDigest([level(records)]);
};

describe("the records' digest", () => {
  const base = digestOf(() => undefined);

  it("leaves out a field the matched record's entry does not manage, and the fields of records no entry matches", () => {
    expect(digestOf((r) => Object.assign(r[0]?.values ?? {}, { Due: "2030-01-01" }))).toBe(base);
    expect(digestOf((r) => Object.assign(r[1]?.values ?? {}, { Score: 9, Due: "2030-01-01" }))).toBe(base);
  });

  it("covers a managed field of a matched record (a case-only match too), every key, and every record", () => {
    expect(digestOf((r) => Object.assign(r[0]?.values ?? {}, { Score: 3 }))).not.toBe(base);
    expect(digestOf((r) => Object.assign(r[1]?.values ?? {}, { Name: "Leaks" }))).not.toBe(base);
    expect(
      digestOf((r) => r.push({ id: 3, values: { Name: "Fraud", Score: 1, Due: "2026-03-01" } })),
    ).not.toBe(base);
    expect(digestOf((r) => Object.assign(r[1]?.values ?? {}, { Name: "outage " }))).not.toBe(base);
    const caseOnly = digestOf((r) => Object.assign(r[1]?.values ?? {}, { Name: "outage" }));
    expect(digestOf((r) => Object.assign(r[1]?.values ?? {}, { Name: "outage", Score: 9 }))).not.toBe(
      caseOnly,
    );
  });

  it("covers a level read without a scope whole", () => {
    const { scope: _scope, ...whole } = level(structuredClone(BASE));
    const edited = structuredClone(whole);
    Object.assign(edited.records[1]?.values ?? {}, { Due: "2030-01-01" });
    expect(recordsDigest([edited])).not.toBe(recordsDigest([whole]));
  });
});

describe("the records' digest's text", () => {
  /** The narrowed levels as plain data, hashed by the canonical writer: what the digest must equal. */
  const reference = (levels: ReadonlyArray<ReturnType<typeof level>>) =>
    hash(
      levels.map(({ scope, fields, records, ...rest }) => ({
        ...rest,
        fields: fields.filter((field) => scope.named.includes(field.name)),
        records: records.map((record) => {
          const key = scope.keyAliases.map((alias) => record.values[alias] ?? null);
          const first = typeof key[0] === "string" ? key[0].trim().toLowerCase() : key[0];
          const managed = scope.managed[JSON.stringify([first])];
          return managed
            ? [record.id, key, managed.map((alias) => record.values[alias] ?? null)]
            : [record.id, key];
        }),
      })),
    );

  it("is the canonical JSON of the narrowed levels, whatever the values hold", () => {
    const records = [
      ...structuredClone(BASE),
      // Objects (keys out of order), nested lists, text needing escapes, a case-only match, no value.
      { id: 4, values: { Name: " outage ", Score: { b: 1, a: [2, { d: null, c: "x" }] }, Due: null } },
      { id: 5, values: { Name: 'quote " and \\ and \u2028', Score: [3, "4"], Due: "2026-05-01" } },
      { id: 6, values: { Name: "Fraud", Score: -0, Due: undefined as unknown as string } },
      { id: 7, values: { Name: 12, Score: "lone \ud800 surrogate", Due: "2026-06-01" } },
    ];
    expect(recordsDigest([level(records)])).toBe(reference([level(records)]));
    expect(recordsDigest([level(records), level(BASE)])).toBe(reference([level(records), level(BASE)]));
  });

  it("is the same for a key of two fields", () => {
    const twoFields: DesiredRecords = {
      ...DOCUMENT,
      key: ["Name", "Due"],
      records: [
        {
          key: ["Outage", "2026-01-01"],
          values: { Name: "Outage", Due: "2026-01-01", Score: 3 },
          source,
          fields: {},
        },
      ],
    };
    const scope = digestScope(twoFields, FIELDS);
    const records = [
      ...structuredClone(BASE),
      { id: 3, values: { Name: " OUTAGE", Score: { z: 1, a: 2 }, Due: "2026-01-01" } },
    ];
    const narrowedRef = hash([
      {
        application: "Risk Register",
        entitySet: "Risk",
        fields: FIELDS.filter((field) => scope.named.includes(field.name)),
        levelId: 7,
        levelName: "Risk",
        records: records.map((record) => {
          const key = [record.values.Name, record.values.Due];
          const folded = JSON.stringify(key.map((part) => String(part).trim().toLowerCase()));
          const managed = scope.managed[folded];
          return managed
            ? [
                record.id,
                key,
                managed.map((alias) => (record.values as Record<string, unknown>)[alias] ?? null),
              ]
            : [record.id, key];
        }),
      },
    ]);
    expect(recordsDigest([{ ...level(records), scope }])).toBe(narrowedRef);
  });
});

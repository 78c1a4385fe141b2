import { FieldType as T } from "../../wire/index.ts";
import { buildCatalogue } from "../catalogue/build.ts";
import { guidFor } from "../catalogue/guid.ts";
import { catalogueOf } from "../catalogue/model.ts";
import { contentOf, type StoredRecord } from "../content/model.ts";
import type { Store } from "../store.ts";
import { FIXED } from "./fixed.ts";

/*
 * `scale:records=N`: an application, Scale Records, whose level holds N records for benchmarks of
 * Record documents: a key field (Record Key, `REC-000001`…), a values list (Category), and two
 * text fields. Deterministic. The records are stored as they are, not through the content
 * writes (no history, no workflow on this level), so that 50,000 are made in well under a second;
 * with `--data` they are written with the rest of the seed, in the one transaction that seeds the file.
 */

const NAMESPACE = "egp-scale";
const CATEGORIES = ["Hardware", "Software", "Service", "Facility", "Other"];

/** `REC-000042`: record n's key. */
export function scaleRecordKey(n: number): string {
  return `REC-${String(n).padStart(6, "0")}`;
}

/** The category record n holds, by name. */
export function scaleRecordCategory(n: number): string {
  return CATEGORIES[n % CATEGORIES.length] as string;
}

export function seedScaleRecords(store: Store, count: number): void {
  if (count <= 0) return;
  const catalogue = catalogueOf(store);
  buildCatalogue(catalogue, {
    namespace: NAMESPACE,
    date: "2026-01-01T00:00:00.000Z",
    modules: [
      {
        key: "records",
        type: "Application",
        name: "Scale Records",
        description: null,
        levels: [
          {
            key: "record",
            name: "Scale Record",
            fields: [
              { key: "key", name: "Record Key", type: T.Text, required: true },
              { key: "category", name: "Category", type: T.ValuesList, values: CATEGORIES },
              { key: "title", name: "Title", type: T.Text },
              { key: "notes", name: "Notes", type: T.Text },
            ],
            layout: {
              name: "Scale Record Layout",
              sections: [{ name: "General", fields: ["key", "category", "title", "notes"] }],
            },
          },
        ],
      },
    ],
    reports: [],
  });
  const field = (key: string) => {
    const found = catalogue.byGuid("fields", guidFor(`${NAMESPACE}:records/record/${key}`));
    if (!found) throw new Error(`scale records: no field ${key}`);
    return found;
  };
  const [key, category, title, notes] = ["key", "category", "title", "notes"].map(field) as [
    ReturnType<typeof field>,
    ReturnType<typeof field>,
    ReturnType<typeof field>,
    ReturnType<typeof field>,
  ];
  const levelId = key.LevelId;
  const moduleId = String(catalogue.level(levelId)?.ModuleId ?? 0);
  const content = contentOf(store);
  const valueIds = new Map(category.ValuesListValues.map((v) => [v.Name, v.Id]));
  const now = store.isoNow();
  const info = {
    CreateDate: now,
    UpdateDate: now,
    CreateLogin: FIXED.adminUserId,
    UpdateLogin: FIXED.adminUserId,
  };
  for (let n = 1; n <= count; n++) {
    const id = store.nextId("content");
    const record: StoredRecord = {
      Id: id,
      LevelId: levelId,
      SequentialId: n,
      Version: "1",
      FieldContents: {
        [String(key.Id)]: { Type: T.Text, FieldId: key.Id, Value: scaleRecordKey(n) },
        [String(category.Id)]: {
          Type: T.ValuesList,
          FieldId: category.Id,
          Value: { ValuesListIds: [valueIds.get(scaleRecordCategory(n)) as number], OtherText: null },
        },
        [String(title.Id)]: { Type: T.Text, FieldId: title.Id, Value: `Scale record ${n}` },
        [String(notes.Id)]: { Type: T.Text, FieldId: notes.Id, Value: `Seeded for benchmarks (${n % 97}).` },
      },
      OwnerId: FIXED.adminUserId,
      UpdateInformation: { ...info },
      History: {},
      Workflow: null,
    };
    content.records[String(id)] = record;
  }
  content.sequences = { ...content.sequences, [moduleId]: count };
  store.changed();
}

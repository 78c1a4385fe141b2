import {
  type CrossReferenceItem,
  type FieldContent,
  FieldType,
  type HistoryEntry,
} from "../../wire/index.ts";
import type { Catalogue } from "../catalogue/model.ts";

/*
 * Data files written before type 9 (Cross-Reference) values took the shape of real instances hold
 * them as bare record ids, in records and in history entries. They are turned into
 * `{ContentId, LevelId}` once, when such a file is opened; the marker says it was done.
 */

export const CROSS_REFERENCE_SHAPE = "objects";

/**
 * The part of the content state the upgrade reads and rewrites; `ContentData` (model.ts) is one.
 * Naming only these fields keeps this module from importing the model that calls it.
 */
interface UpgradedContent {
  records: Record<string, UpgradedRecord>;
  crossReferenceShape?: typeof CROSS_REFERENCE_SHAPE;
}

interface UpgradedRecord {
  LevelId: number;
  FieldContents: Record<string, FieldContent>;
  History: Record<string, HistoryEntry[]>;
}

/** A bare id's item: its record's level; a deleted record's is the one its field could point at. */
function itemsOf(value: unknown, levelOf: (id: number) => number | undefined, fallback: number | null) {
  if (!Array.isArray(value)) return value;
  return value.map((item): unknown =>
    typeof item === "number"
      ? ({ ContentId: item, LevelId: levelOf(item) ?? fallback } as CrossReferenceItem)
      : item,
  );
}

export function upgradeCrossReferences(data: UpgradedContent, catalogue: Catalogue): void {
  const levelOf = (id: number) => data.records[String(id)]?.LevelId;
  const isCrossReference = (fieldId: number) => catalogue.field(fieldId)?.Type === FieldType.CrossReference;
  const fallback = (fieldId: number) => catalogue.field(fieldId)?.ReferencedLevelIds[0] ?? null;
  for (const record of Object.values(data.records)) {
    for (const [key, content] of Object.entries(record.FieldContents)) {
      if (content.Type !== FieldType.CrossReference) continue;
      content.Value = itemsOf(content.Value, levelOf, fallback(Number(key)));
    }
    for (const entries of Object.values(record.History)) {
      for (const change of entries.flatMap((entry) => entry.Changes)) {
        if (!isCrossReference(change.FieldId)) continue;
        change.OldValue = itemsOf(change.OldValue, levelOf, fallback(change.FieldId));
        change.NewValue = itemsOf(change.NewValue, levelOf, fallback(change.FieldId));
      }
    }
  }
  data.crossReferenceShape = CROSS_REFERENCE_SHAPE;
}

import { type ContentRead, FieldType, type ValuesListContent } from "../../wire/index.ts";
import type { Catalogue, FieldRecord } from "../catalogue/model.ts";
import type { FieldKind, ODataQuery } from "../odata.ts";
import type { StoredRecord } from "./model.ts";

/*
 * OData over content records. A query names `Id`, `LevelId` and the fields of the levels in scope
 * by alias (`Risk_Score eq 15`); text, IP addresses and values lists (the chosen values' names)
 * compare as text, numbers as numbers, dates as instants. Other types can be selected but not
 * filtered or sorted. `$select` keeps `Id`, `LevelId` and the chosen fields' contents.
 */

const KIND_OF_TYPE: Readonly<Record<number, FieldKind>> = {
  [FieldType.Text]: "string",
  [FieldType.Numeric]: "number",
  [FieldType.Date]: "datetime",
  [FieldType.ValuesList]: "string",
  [FieldType.IpAddress]: "string",
};

const RECORD_FIELDS = ["Id", "LevelId"] as const;

export interface ContentScope {
  /** Name → kind, for the OData parser; undefined: the same alias has different kinds. */
  spec: Record<string, FieldKind | undefined>;
  /** Lower-case alias → field, per level. */
  byAlias: Map<number, Map<string, FieldRecord>>;
}

/** The names a query over these fields may use. */
export function contentScope(fields: readonly FieldRecord[]): ContentScope {
  const spec: Record<string, FieldKind | undefined> = { Id: "number", LevelId: "number" };
  const byAlias = new Map<number, Map<string, FieldRecord>>();
  const seen = new Map<string, string>();
  for (const field of fields) {
    const lower = field.Alias.toLowerCase();
    if (RECORD_FIELDS.some((name) => name.toLowerCase() === lower)) continue;
    const perLevel = byAlias.get(field.LevelId) ?? new Map<string, FieldRecord>();
    perLevel.set(lower, field);
    byAlias.set(field.LevelId, perLevel);
    const kind = KIND_OF_TYPE[field.Type] ?? "object";
    const name = seen.get(lower) ?? field.Alias;
    if (!seen.has(lower)) {
      seen.set(lower, name);
      spec[name] = kind;
    } else if (spec[name] !== kind) {
      spec[name] = undefined;
    }
  }
  return { spec, byAlias };
}

export function levelFields(catalogue: Catalogue, levelIds: Iterable<number>): FieldRecord[] {
  return [...new Set(levelIds)].flatMap((levelId) => catalogue.fieldsOf(levelId));
}

function valuesListText(field: FieldRecord, value: ValuesListContent): string | null {
  const names = value.ValuesListIds.map((id) => field.ValuesListValues.find((v) => v.Id === id)?.Name ?? "");
  return names.length > 0 ? names.join(", ") : value.OtherText;
}

/** The value a filter or sort sees for a name. */
export function contentField(scope: ContentScope) {
  return (record: StoredRecord, name: string): unknown => {
    if (name === "Id") return record.Id;
    if (name === "LevelId") return record.LevelId;
    const field = scope.byAlias.get(record.LevelId)?.get(name.toLowerCase());
    const stored = field ? record.FieldContents[String(field.Id)] : undefined;
    // A field whose type changed since the value was saved (a package install) has no comparable value.
    if (!field || !stored || stored.Type !== field.Type) return null;
    const value = stored.Value;
    if (field.Type === FieldType.ValuesList) return valuesListText(field, value as ValuesListContent);
    return KIND_OF_TYPE[field.Type] ? value : null;
  };
}

/** A record as the reads return it; with `$select`, only the chosen fields' contents. */
export function presentRecord(
  record: StoredRecord,
  query?: ODataQuery,
  scope?: ContentScope,
  onlyFields?: ReadonlySet<number>,
): ContentRead {
  let keys = Object.keys(record.FieldContents);
  if (onlyFields) keys = keys.filter((key) => onlyFields.has(Number(key)));
  if (!query?.select || !scope) {
    return {
      Id: record.Id,
      LevelId: record.LevelId,
      SequentialId: record.SequentialId ?? 0,
      Version: record.Version,
      FieldContents: Object.fromEntries(keys.map((key) => [key, record.FieldContents[key]!])),
      UpdateInformation: record.UpdateInformation,
    };
  }
  const chosen = new Set(
    query.select.flatMap((name) => {
      const field = scope.byAlias.get(record.LevelId)?.get(name.toLowerCase());
      return field ? [String(field.Id)] : [];
    }),
  );
  return {
    Id: record.Id,
    LevelId: record.LevelId,
    SequentialId: record.SequentialId ?? 0,
    FieldContents: Object.fromEntries(
      keys.filter((key) => chosen.has(key)).map((key) => [key, record.FieldContents[key]!]),
    ),
  };
}

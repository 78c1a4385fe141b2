import { FieldType, type ValuesListContent } from "../../wire/index.ts";
import type { Catalogue, FieldRecord, LevelRecord } from "../catalogue/model.ts";
import type { FieldKind, ODataQuery } from "../odata.ts";
import type { StoredRecord } from "./model.ts";
import { contentField, contentScope } from "./query.ts";

/*
 * The Content API's view of records (`/contentapi/<Level_Alias>`): one entity set per level, named
 * by the level's alias; an entity is `<Level_Alias>_Id` and every active field of the level by its
 * alias, `null` when empty. Values lists read as arrays of the chosen values' names (with the
 * `OtherText`, when there is one, last); other types keep the shape of the REST reads, with
 * references as bare content ids. Queries use the names of the entity and compare as the REST
 * content queries do.
 */

/** An entity set: its name and the level whose records it holds. */
export interface EntitySet {
  name: string;
  level: LevelRecord;
}

/**
 * The entity sets: one per level alias (compared case-insensitively; the level with the lower id
 * wins), then one per module alias that no level has, holding the module's first level. Real
 * instances name an application's first level after the application (`Risk_Register`), and clients
 * build the set's name from the application; the seeds name their levels otherwise (`Risk`), so
 * both names answer.
 */
export function entitySets(catalogue: Catalogue): EntitySet[] {
  const seen = new Set<string>();
  const sets: EntitySet[] = [];
  const add = (name: string, level: LevelRecord | undefined) => {
    const key = name.toLowerCase();
    if (!level || seen.has(key)) return;
    seen.add(key);
    sets.push({ name, level });
  };
  const byId = <T extends { Id: number }>(records: T[]) => records.sort((a, b) => a.Id - b.Id);
  for (const level of byId(catalogue.all("levels"))) add(level.Alias, level);
  for (const module of byId(catalogue.all("modules")))
    add(module.Alias, byId(catalogue.levelsOf(module.Id))[0]);
  return sets;
}

export function entitySet(catalogue: Catalogue, name: string): EntitySet | undefined {
  const lower = name.toLowerCase();
  return entitySets(catalogue).find((set) => set.name.toLowerCase() === lower);
}

export interface EntityView {
  idKey: string;
  fields: FieldRecord[];
  /** Name → kind, for the OData parser. */
  spec: Record<string, FieldKind | undefined>;
  /** The value a filter or sort sees for a name. */
  fieldOf(record: StoredRecord, name: string): unknown;
  /** The entity, whole or with the `$select` names only. */
  present(record: StoredRecord, query: ODataQuery): Record<string, unknown>;
}

export function entityView(catalogue: Catalogue, { name, level }: EntitySet): EntityView {
  const idKey = `${name}_Id`;
  const fields = catalogue.fieldsOf(level.Id).filter((f) => f.IsActive && f.Alias !== idKey);
  const scope = contentScope(fields);
  const { Id: _id, LevelId: _level, ...byAlias } = scope.spec;
  const spec: Record<string, FieldKind | undefined> = { [idKey]: "number", ...byAlias };
  const compared = contentField(scope);
  const fieldOf = (record: StoredRecord, name: string) =>
    name === idKey ? record.Id : compared(record, name);
  const present = (record: StoredRecord, query: ODataQuery) => {
    const entity: Record<string, unknown> = { [idKey]: record.Id };
    for (const field of fields) entity[field.Alias] = fieldValue(field, record);
    if (!query.select) return entity;
    return Object.fromEntries(query.select.map((name) => [name, entity[name] ?? null]));
  };
  return { idKey, fields, spec, fieldOf, present };
}

function fieldValue(field: FieldRecord, record: StoredRecord): unknown {
  const stored = record.FieldContents[String(field.Id)];
  // A field whose type changed since the value was saved (a package install) has no readable value.
  if (!stored || stored.Type !== field.Type) return null;
  if (field.Type === FieldType.ValuesList) return valueNames(field, stored.Value as ValuesListContent);
  if (field.Type === FieldType.CrossReference) {
    return (stored.Value as Array<{ ContentId: number }>).map((item) => item.ContentId);
  }
  return stored.Value ?? null;
}

/** The chosen values' names, in the list's order, then the other text. */
export function valueNames(field: FieldRecord, value: ValuesListContent): string[] {
  const chosen = new Set(value.ValuesListIds);
  const names = field.ValuesListValues.filter((v) => chosen.has(v.Id)).map((v) => v.Name);
  return value.OtherText ? [...names, value.OtherText] : names;
}

import type { PlatformClient } from "../../client/client.ts";
import type { DesiredRecords } from "../../manifest/kinds/record.ts";
import { FieldType } from "../../wire/index.ts";

/*
 * The sub-forms whose rows Record documents write: for each, its level, its fields and the rows
 * the managed records hold, read once through the Content API (the sub-form's level is an entity
 * set of its own), never one row at a time. A record's sub-form field holds its rows' content ids.
 */

/** A field as the planner resolves names against it (the shape of a level's fields). */
export interface SubformField {
  id: number;
  name: string;
  alias: string;
  type: number;
  values: { id: number; name: string }[];
  subform?: number;
}

export interface LiveSubform {
  levelId: number;
  entitySet: string;
  fields: SubformField[];
  /** The rows the managed records hold, by content id: each field's value by alias. */
  rows: Record<string, Record<string, unknown>>;
}

interface Level {
  fields: readonly SubformField[];
  records: readonly { values: Record<string, unknown> }[];
}

/** The sub-form fields each document's entries give, with the row ids the level's records hold in them. */
function wanted(documents: readonly DesiredRecords[], levels: readonly (Level | undefined)[]) {
  const byModule = new Map<number, Set<number>>();
  documents.forEach((document, index) => {
    const level = levels[index];
    if (!level) return;
    const given = new Set(document.records.flatMap((entry) => Object.keys(entry.values)));
    for (const field of level.fields) {
      if (field.type !== FieldType.SubForm || field.subform === undefined || !given.has(field.name)) continue;
      const ids = byModule.get(field.subform) ?? new Set<number>();
      for (const record of level.records) {
        const value = record.values[field.alias];
        if (Array.isArray(value)) for (const id of value) ids.add(Number(id));
      }
      byModule.set(field.subform, ids);
    }
  });
  return byModule;
}

async function readSubform(
  client: PlatformClient,
  moduleId: number,
  ids: ReadonlySet<number>,
  fieldsOf: (client: PlatformClient, levelId: number) => Promise<SubformField[]>,
): Promise<LiveSubform | undefined> {
  const [level] = [...(await client.metadata.levelsByModule(moduleId))].sort((a, b) => a.Id - b.Id);
  if (!level) return undefined;
  const fields = await fieldsOf(client, level.Id);
  const idField = `${level.Alias}_Id`;
  const rows: LiveSubform["rows"] = {};
  if (ids.size > 0) {
    const entities = await client.contentApi.allRecords(level.Alias, {
      select: [idField, ...fields.map((field) => field.alias)],
    });
    for (const { [idField]: id, ...values } of entities) if (ids.has(Number(id))) rows[String(id)] = values;
  }
  return { levelId: level.Id, entitySet: level.Alias, fields, rows };
}

/** The sub-forms the documents write rows of, by module id; undefined when none. */
export async function readSubforms(
  client: PlatformClient,
  documents: readonly DesiredRecords[],
  levels: readonly (Level | undefined)[],
  fieldsOf: (client: PlatformClient, levelId: number) => Promise<SubformField[]>,
): Promise<Record<string, LiveSubform> | undefined> {
  const byModule = wanted(documents, levels);
  if (byModule.size === 0) return undefined;
  const read = await Promise.all(
    [...byModule].map(
      async ([moduleId, ids]) => [moduleId, await readSubform(client, moduleId, ids, fieldsOf)] as const,
    ),
  );
  const subforms: Record<string, LiveSubform> = {};
  for (const [moduleId, subform] of read) if (subform) subforms[String(moduleId)] = subform;
  return subforms;
}

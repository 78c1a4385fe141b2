import type { OpContext } from "./types.ts";

/*
 * A sub-form field's write: the rows the plan kept are sent by id; each other row is created first
 * (a content POST of the sub-form's level with the sub-form field's id), and the field is set to the
 * ids. A row's create is not repeated blindly (a lost answer fails the step, as every POST does).
 */

type Row = { id: number } | { levelId: number; fields: { fieldId: number; type: number; value: unknown }[] };

export interface SubformValue {
  SubformFieldId: number;
  Rows: Row[];
}

export function isSubformValue(value: unknown): value is SubformValue {
  return typeof value === "object" && value !== null && "Rows" in value && "SubformFieldId" in value;
}

async function create(context: OpContext, subformFieldId: number, row: Extract<Row, { levelId: number }>) {
  const contents = Object.fromEntries(
    row.fields.map((field) => [
      String(field.fieldId),
      { Type: field.type, Value: field.value, FieldId: field.fieldId },
    ]),
  );
  return context.client.content.create({
    LevelId: row.levelId,
    FieldContents: contents,
    SubformFieldId: subformFieldId,
  });
}

/** The row ids the field is set to, in the plan's order: kept rows' ids and the new rows'. */
export async function subformRowIds(context: OpContext, value: SubformValue): Promise<number[]> {
  const ids: number[] = [];
  for (const row of value.Rows)
    ids.push("id" in row ? row.id : await create(context, value.SubformFieldId, row));
  return ids;
}

import type { RecordFieldValue } from "../../manifest/kinds/record.ts";
import type { LiveRecordField } from "../../state/kinds/record.ts";
import { PLAIN_FIELD_TYPES } from "../../wire/index.ts";
import {
  didYouMean,
  type PlainWireValue,
  type Resolved,
  type SubformWrite,
  type ValueContext,
  type ValueProblem,
} from "./record-value-base.ts";

/*
 * A sub-form field: written as a list of rows, each a mapping of the sub-form's field names to
 * values in the forms of the other field types. Rows compare as a set: a written row matches a live
 * row of the record when each field the row gives has the live row's value (fields it leaves out
 * are not compared); each live row matches one written row at most. The field is the same when
 * every written row matches and no live row is left over. Otherwise apply keeps the matched rows,
 * creates the others (a content POST with the sub-form field's id) and sets the field to the ids.
 */

type Resolve = (
  field: LiveRecordField,
  desired: RecordFieldValue,
  live: unknown,
  context: ValueContext,
) => Resolved | ValueProblem;

/** The types a row's fields may have: the plain ones, not attachments nor sub-forms within rows. */
const IN_ROWS: ReadonlySet<number> = new Set(PLAIN_FIELD_TYPES);

const FORM = "a sub-form field takes a list of rows, each a mapping of field name to value";

function isMapping(value: unknown): value is Record<string, RecordFieldValue> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

type Row = { values: Record<string, RecordFieldValue>; fields: LiveRecordField[] };

/** Each row's fields, checked against the sub-form's fields, or the first problem. */
function rowsOf(field: LiveRecordField, desired: RecordFieldValue, fields: readonly LiveRecordField[]) {
  if (desired === null) return [];
  if (!Array.isArray(desired)) return { problem: "invalid", message: FORM } as ValueProblem;
  const rows: Row[] = [];
  for (const [index, row] of desired.entries()) {
    if (!isMapping(row))
      return { problem: "invalid", message: `${FORM}: row ${index} is not a mapping` } as ValueProblem;
    const named: LiveRecordField[] = [];
    for (const name of Object.keys(row)) {
      const found = fields.find((candidate) => candidate.name === name);
      if (!found)
        return {
          problem: "invalid",
          message: `the sub-form of "${field.name}" has no field "${name}" (row ${index})${didYouMean(
            name,
            fields.map((candidate) => candidate.name),
          )}`,
        } as ValueProblem;
      if (!IN_ROWS.has(found.type))
        return {
          problem: "invalid",
          message: `"${name}" of the sub-form of "${field.name}" is a field of a type sub-form rows do not write (row ${index})`,
        } as ValueProblem;
      named.push(found);
    }
    rows.push({ values: row, fields: named });
  }
  return rows;
}

/** Whether a live row holds every value a written row gives; a problem in the row is returned as such. */
function matches(row: Row, live: Record<string, unknown>, context: ValueContext, resolve: Resolve) {
  for (const field of row.fields) {
    const result = resolve(field, row.values[field.name] ?? null, live[field.alias], context);
    if ("problem" in result) return result;
    if (!result.same) return false;
  }
  return true;
}

/** A live row as the plan shows it: each field the written rows name, by name, as its type shows it. */
function shown(
  live: Record<string, unknown>,
  fields: readonly LiveRecordField[],
  context: ValueContext,
  resolve: Resolve,
) {
  const row: Record<string, unknown> = {};
  for (const field of fields) {
    const result = resolve(field, null, live[field.alias], context);
    if (!("problem" in result) && result.before !== null) row[field.name] = result.before;
  }
  return row;
}

export function resolveSubform(
  field: LiveRecordField,
  desired: RecordFieldValue,
  live: unknown,
  context: ValueContext,
  resolve: Resolve,
): Resolved | ValueProblem {
  const subform = field.subform === undefined ? undefined : context.subforms?.[String(field.subform)];
  if (!subform) return { problem: "invalid", message: `the sub-form of "${field.name}" was not read` };
  const rows = rowsOf(field, desired, subform.fields);
  if (!Array.isArray(rows)) return rows;
  const ids = Array.isArray(live) ? live.map(Number).filter(Number.isSafeInteger) : [];
  const liveRows = ids.map((id) => ({ id, values: subform.rows[String(id)] ?? {} }));
  const left = [...liveRows];
  const items: SubformWrite["Rows"] = [];
  for (const row of rows) {
    let kept: number | undefined;
    for (const [at, candidate] of left.entries()) {
      const result = matches(row, candidate.values, context, resolve);
      if (typeof result === "object") return result;
      if (result) {
        kept = candidate.id;
        left.splice(at, 1);
        break;
      }
    }
    if (kept !== undefined) {
      items.push({ id: kept });
      continue;
    }
    const fields: { fieldId: number; type: number; value: PlainWireValue }[] = [];
    for (const rowField of row.fields) {
      const result = resolve(rowField, row.values[rowField.name] ?? null, undefined, context);
      if ("problem" in result) return result;
      // A row's fields are of the plain types (IN_ROWS): their values are sent as they are.
      fields.push({ fieldId: rowField.id, type: rowField.type, value: result.wire as PlainWireValue });
    }
    items.push({ levelId: subform.levelId, fields });
  }
  const names = [...new Set(rows.flatMap((row) => row.fields))];
  const before =
    liveRows.length === 0 ? null : liveRows.map((row) => shown(row.values, names, context, resolve));
  return {
    wire: items.length === 0 ? null : { SubformFieldId: field.id, Rows: items },
    same: left.length === 0 && items.every((item) => "id" in item),
    before,
  };
}

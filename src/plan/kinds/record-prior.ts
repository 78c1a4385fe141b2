import type { LiveRecordField } from "../../state/kinds/record.ts";
import { FieldType } from "../../wire/index.ts";
import type { WireValue } from "./record-values.ts";

/*
 * A live field's value as the plan read it, in the form a content PUT takes back, so that a
 * rollback can write it again: values lists by the ids of the value names read (ids, not names,
 * because a value renamed since must still come back as the same value).
 */

const NO_VALUES: WireValue = { ValuesListIds: [], OtherText: null };

function valuesListPrior(field: LiveRecordField, live: unknown): WireValue {
  const names = live === null || live === undefined ? [] : Array.isArray(live) ? live : [live];
  const ids: number[] = [];
  let other: string | null = null;
  for (const name of names.map(String)) {
    const value = field.values.find((candidate) => candidate.name === name);
    // The Content API gives a value's other text after its names: it matches no value.
    if (value) ids.push(value.id);
    else other = name;
  }
  return { ValuesListIds: ids, OtherText: other };
}

/** The value the field held when the plan read it; `null` for an empty field. */
export function priorValue(field: LiveRecordField, live: unknown): WireValue {
  switch (field.type) {
    case FieldType.ValuesList:
      return live === null || live === undefined ? NO_VALUES : valuesListPrior(field, live);
    case FieldType.Numeric:
      return typeof live === "number" ? live : null;
    default:
      if (typeof live === "string") return live === "" ? null : live;
      return typeof live === "number" ? String(live) : null;
  }
}

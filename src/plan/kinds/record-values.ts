import type { RecordFieldValue } from "../../manifest/kinds/record.ts";
import type { LiveRecordField } from "../../state/kinds/record.ts";
import { FieldType, PLAIN_FIELD_TYPES } from "../../wire/index.ts";
import { resolveAttachments } from "./record-attachment-values.ts";
import { resolveIpAddress } from "./record-ip-address.ts";
import { resolveLinks } from "./record-links.ts";
import { resolveSubform } from "./record-subform-values.ts";
import { resolveUsersGroups } from "./record-users-groups.ts";
import {
  didYouMean,
  type Resolved,
  sameSet,
  type ValueContext,
  type ValueProblem,
} from "./record-value-base.ts";

export {
  type AttachmentWrite,
  didYouMean,
  type Problems,
  type Resolved,
  type ValueContext,
  type ValueProblem,
  type WireValue,
} from "./record-value-base.ts";

/*
 * One record field's desired value against its live value, per field type: what the step sends
 * (values-list values by id), whether the live value already is it, and the live value as the plan
 * shows it (values by name); or why it can't be written.
 */

export const TYPE_NAMES: Readonly<Record<number, string>> = {
  [FieldType.Text]: "text",
  [FieldType.Numeric]: "numeric",
  [FieldType.Date]: "date",
  [FieldType.ValuesList]: "values list",
  [FieldType.ExternalLinks]: "external links",
  [FieldType.UsersGroups]: "users/groups",
  [FieldType.CrossReference]: "cross-reference",
  [FieldType.Attachment]: "attachment",
  [FieldType.Image]: "image",
  [FieldType.Matrix]: "matrix",
  [FieldType.IpAddress]: "IP address",
  [FieldType.RelatedRecords]: "related records",
  [FieldType.SubForm]: "sub-form",
};

/** Whether a field's values are numbers, as a filter on it must write them. */
export const isNumericField = (field: { type: number }): boolean => field.type === FieldType.Numeric;

export const SERVED: ReadonlySet<number> = new Set([
  ...PLAIN_FIELD_TYPES,
  FieldType.Attachment,
  FieldType.Image,
  FieldType.SubForm,
]);

/** The names a live values-list value holds (the Content API gives names, in list order). */
function liveNames(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

/**
 * One field's desired value against its live value, or the problem that keeps it from being
 * written: a value of the wrong form (invalid) or a value name the list lacks (unresolved).
 */
export function resolve(
  field: LiveRecordField,
  desired: RecordFieldValue,
  live: unknown,
  context: ValueContext = {},
): Resolved | ValueProblem {
  const cleared = desired === null;
  switch (field.type) {
    case FieldType.Text: {
      if (typeof desired === "object" && desired !== null)
        return { problem: "invalid", message: "a text field takes one value" };
      const text = cleared ? null : String(desired);
      const before = typeof live === "string" && live !== "" ? live : null;
      return { wire: text, same: (text ?? "") === (before ?? ""), before };
    }
    case FieldType.Numeric: {
      const number = cleared ? null : typeof desired === "number" ? desired : Number.NaN;
      if (number !== null && !Number.isFinite(number))
        return { problem: "invalid", message: "a numeric field takes a number" };
      const before = typeof live === "number" ? live : null;
      return { wire: number, same: number === before, before };
    }
    case FieldType.Date: {
      if (!cleared && (typeof desired !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(desired)))
        return { problem: "invalid", message: "a date field takes a date, YYYY-MM-DD" };
      const date = cleared ? null : (desired as string);
      const before = typeof live === "string" && live !== "" ? live.slice(0, 10) : null;
      return { wire: date, same: date === before, before };
    }
    case FieldType.ValuesList: {
      const names = cleared ? [] : Array.isArray(desired) ? desired : [desired];
      if (!names.every((name): name is string => typeof name === "string"))
        return { problem: "invalid", message: "a values-list field takes value names" };
      const ids: number[] = [];
      for (const name of names) {
        const value = field.values.find((candidate) => candidate.name === name);
        if (!value) {
          const hint = didYouMean(
            name,
            field.values.map((candidate) => candidate.name),
          );
          return {
            problem: "unresolved",
            message: `no value "${name}" in the values list of "${field.name}"${hint}`,
          };
        }
        ids.push(value.id);
      }
      const current = liveNames(live);
      const before = Array.isArray(desired) ? current : current.length <= 1 ? (current[0] ?? null) : current;
      return { wire: { ValuesListIds: ids, OtherText: null }, same: sameSet(names, current), before };
    }
    case FieldType.UsersGroups:
      return resolveUsersGroups(field, desired, live, context.principals);
    case FieldType.ExternalLinks:
      return resolveLinks(desired, live);
    case FieldType.IpAddress:
      return resolveIpAddress(desired, live);
    case FieldType.Attachment:
    case FieldType.Image:
      return resolveAttachments(field, desired, live, context);
    case FieldType.SubForm:
      return resolveSubform(field, desired, live, context, resolve);
    default:
      // fieldProblems refuses these types before any entry is planned.
      return { problem: "invalid", message: "a field of this type is not written yet" };
  }
}

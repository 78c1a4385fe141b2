import { z } from "zod";
import type { FieldSource, SourceLocation } from "../errors.ts";
import { checkEnsure, fieldsOfEntry, isAbsentEntry } from "../record-ensure.ts";
import type { Reporter } from "../report.ts";
import { type DocumentRule, defineKind, scoping, sourceOf } from "./kind.ts";

/*
 * A `Record` document: the content records of one application's level, keyed by the values of one
 * or more of its fields (what people call a record), each field by its name and each values-list
 * value by its name. Which fields exist and which values they take is the instance's to say: the
 * planner checks them against it (src/plan/kinds/record.ts); this module checks only the shape.
 */

/**
 * One field's value as a record entry writes it: `null` clears it; a list is a multi-valued field;
 * a mapping is a users/groups value (`{ users: [...], groups: [...] }`); lists of mappings are
 * external links and sub-form rows. Which form a field takes depends on its type, which only the
 * instance knows: the planner checks it (src/plan/kinds/record-values.ts).
 */
const FieldValue = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.null(),
  z.array(z.union([z.string(), z.number(), z.boolean(), z.record(z.string(), z.unknown())])),
  z.record(z.string(), z.unknown()),
]);
export type RecordFieldValue = z.infer<typeof FieldValue>;

export const RecordDocument = z
  .strictObject({
    kind: z.literal("Record"),
    ...scoping,
    application: z.string().trim().min(1).describe("The application, by name."),
    level: z
      .string()
      .trim()
      .min(1)
      .optional()
      .describe("The level, by name, when it is not the application's first."),
    key: z
      .array(z.string().trim().min(1))
      .min(1)
      .describe("The fields, by name, whose values identify one record."),
    keys: z
      .record(z.string().trim().min(1), z.array(z.string().trim().min(1)).min(1))
      .optional()
      .describe(
        "The key fields of applications this document references that no Record document of the environment keys: application (or `Application/Level`) → field names.",
      ),
    records: z
      .array(z.record(z.string(), FieldValue))
      .describe(
        "The records: field name → value (values lists by value name; null clears a field); `ensure: absent` deletes the record its key fields name.",
      ),
    prune: z
      .enum(["ignore", "delete"])
      .optional()
      .describe("`delete`: delete the level's records that no entry names (default `ignore`)."),
  })
  .describe(
    "Content records of one application, keyed by the fields `key` names. Only the fields given are managed.",
  );
export type RecordDocument = z.infer<typeof RecordDocument>;

/** One record entry: its key values (trimmed, in `key` order) and its fields, each with its position. */
export interface DesiredRecordEntry {
  key: string[];
  values: Readonly<Record<string, RecordFieldValue>>;
  /** Where the entry's first key field is written. */
  source: FieldSource;
  /** Where each field of the entry is written, by field name. */
  fields: Readonly<Record<string, FieldSource>>;
  /** `ensure: absent`: the record its key names is deleted; `values` then holds the key fields only. */
  ensure?: "absent";
}

/** One `keys:` entry: the key fields of a referenced application (or `Application/Level`). */
export interface DesiredTargetKey {
  target: string;
  fields: string[];
  source: FieldSource;
}

export interface DesiredRecords {
  kind: "Record";
  application: string;
  level?: string;
  key: string[];
  /** The referenced applications' keys this document names itself (`keys:`). */
  keys?: DesiredTargetKey[];
  records: DesiredRecordEntry[];
  /** `prune: delete`: the level's records that no entry names are deleted. */
  prune?: "delete";
  source: SourceLocation;
}

/** A key value as it compares: text, trimmed; a record's key is the tuple of its key fields. */
export function keyText(value: unknown): string | undefined {
  if (typeof value === "string") return value.trim() === "" ? undefined : value.trim();
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/** `"Acme Hosting"`, or `"Acme Hosting", "2027"` for a key of several fields: how plans name a record. */
export function recordLabel(key: readonly string[]): string {
  return key.map((part) => JSON.stringify(part)).join(", ");
}

const keysAreNamedOnce: DocumentRule<RecordDocument> = (doc, report) => {
  const seen = new Set<string>();
  doc.key.forEach((field, index) => {
    if (seen.has(field)) report.error(["key", index], `names the field "${field}" twice`);
    seen.add(field);
  });
};

/** Every entry gives each key field a single value; no two entries have the same key. */
const everyEntryHasOneKey: DocumentRule<RecordDocument> = (doc, report) => {
  const first = new Map<string, number>();
  doc.records.forEach((entry, index) => {
    const parts = doc.key.map((field) => keyText(entry[field]));
    const missing = doc.key.filter((_, at) => parts[at] === undefined);
    if (missing.length > 0) {
      for (const field of missing) {
        if (entry[field] === undefined)
          report.error(["records", index], `has no value for the key field "${field}"`);
        else report.error(["records", index, field], "a key field needs one non-empty text or number");
      }
      return;
    }
    const id = JSON.stringify(parts);
    const earlier = first.get(id);
    if (earlier === undefined) first.set(id, index);
    else
      report.error(
        ["records", index, doc.key[0] as string],
        `the key ${recordLabel(parts as string[])} is also records[${earlier}]'s`,
      );
  });
};

function entryOf(doc: RecordDocument, index: number, report: Reporter): DesiredRecordEntry {
  const written = doc.records[index] ?? {};
  const values = fieldsOfEntry(written);
  const fields: Record<string, FieldSource> = {};
  for (const field of Object.keys(written)) fields[field] = report.where(["records", index, field]);
  return {
    key: doc.key.map((field) => keyText(values[field]) ?? ""),
    values,
    source: report.where(["records", index, doc.key[0] as string]),
    fields,
    ...(isAbsentEntry(written) ? { ensure: "absent" as const } : {}),
  };
}

export const recordKind = defineKind({
  kind: "Record",
  plural: "records",
  schema: RecordDocument,
  rules: [keysAreNamedOnce, everyEntryHasOneKey, checkEnsure],
  // One document per application level and environment: two would manage the same records.
  key: {
    field: "application",
    of: (desired: DesiredRecords) => `${desired.application}/${desired.level ?? ""}`.toLowerCase(),
  },
  normalize(doc, _environment, report): DesiredRecords {
    return {
      kind: "Record",
      application: doc.application,
      ...(doc.level === undefined ? {} : { level: doc.level }),
      key: doc.key,
      ...(doc.keys === undefined
        ? {}
        : {
            keys: Object.entries(doc.keys).map(([target, fields]) => ({
              target,
              fields,
              source: report.where(["keys", target]),
            })),
          }),
      records: doc.records.map((_, index) => entryOf(doc, index, report)),
      ...(doc.prune === "delete" ? { prune: "delete" as const } : {}),
      source: sourceOf(report, "application"),
    };
  },
});

import { EgpError } from "../errors/index.ts";
import { FieldType, PLAIN_FIELD_TYPES, REFERENCE_FIELD_TYPES } from "../wire/index.ts";
import type { ExportedDocument } from "./kind.ts";

/*
 * One application level's records as a `Record` document (docs/records.md, "Export"): each field in
 * the manifest form every Record document uses (values lists by value name, users and groups by
 * name, references by the target's key), so that a plan of the document shows no changes. Fields of
 * types no manifest form expresses are left out and named. Pure: the caller reads the instance.
 */

/** A field of the exported level, as the exporter writes it. */
export interface ExportField {
  name: string;
  alias: string;
  type: number;
  /** Values-list values, by id and name. */
  values: readonly { id: number; name: string }[];
}

/** The records a reference field points at: how the document names them. */
export interface ReferenceTarget {
  /** The target as a `keys:` map names it (`Risk Register`), or undefined when the repository's Record document for it gives its key. */
  keysEntry?: string;
  /** The target's key fields, by name. */
  key: readonly string[];
  /** Each target record's key values, in `key` order, by content id. */
  keys: ReadonlyMap<number, readonly string[]>;
}

export interface RecordExportInput {
  environment: string;
  application: string;
  /** Set when the level is not the application's first. */
  level?: string;
  /** The key fields, by name. */
  key: readonly string[];
  /** The level's fields in form order. */
  fields: readonly ExportField[];
  /** The records: content id and values by field alias, as the Content API gives them. */
  records: readonly { id: number; values: Readonly<Record<string, unknown>> }[];
  users: ReadonlyMap<number, string>;
  groups: ReadonlyMap<number, string>;
  /** Each reference field's target, by field alias; a field without one is left out. */
  targets: ReadonlyMap<string, ReferenceTarget>;
}

export interface RecordExport {
  document: ExportedDocument;
  /** The fields left out, each with its type, and the values left out, one line each. */
  leftOutFields: string[];
  warnings: string[];
}

const TYPE_WORDS: Readonly<Record<number, string>> = {
  [FieldType.Attachment]: "attachment",
  [FieldType.Image]: "image",
  [FieldType.SubForm]: "sub-form",
  [FieldType.Matrix]: "matrix",
  [FieldType.CrossReference]: "cross-reference to several levels",
  [FieldType.RelatedRecords]: "related records of several levels",
};

const EXPRESSED: ReadonlySet<number> = new Set([...PLAIN_FIELD_TYPES, ...REFERENCE_FIELD_TYPES]);

const REFERENCES: ReadonlySet<number> = new Set([FieldType.CrossReference, FieldType.RelatedRecords]);

/** Types a key field may have: their values compare as one text. */
export const KEY_TYPES: ReadonlySet<number> = new Set([
  FieldType.Text,
  FieldType.Numeric,
  FieldType.ValuesList,
  FieldType.IpAddress,
]);

/** Whether the field holds references to records (cross-reference, related records). */
export function isReference(type: number): boolean {
  return REFERENCES.has(type);
}

/** Whether the field holds users and groups. */
export function isUsersGroups(type: number): boolean {
  return type === FieldType.UsersGroups;
}

/** Whether a Record document can hold the field's values. */
export function expressible(type: number): boolean {
  return EXPRESSED.has(type);
}

/** `Logo (image)`: how the summary names a field it leaves out. */
export function typeWord(type: number): string {
  return TYPE_WORDS[type] ?? `type ${type}`;
}

/** A key value as the document writes it and a plan compares it: trimmed text, or undefined when empty. */
export function keyPart(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.length === 1 ? keyPart(value[0]) : undefined;
  if (typeof value === "string") return value.trim() === "" ? undefined : value.trim();
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/** A reference as a document writes it: the key text, or the key fields by name when there are several. */
function referenceOf(target: ReferenceTarget, parts: readonly string[]): unknown {
  if (target.key.length === 1) return parts[0];
  return Object.fromEntries(target.key.map((field, at) => [field, parts[at]]));
}

/** The content ids a reference field holds: bare ids, or `{ContentId}` items. */
function contentIds(value: unknown): number[] {
  if (!Array.isArray(value)) return [];
  return value
    .map((item) =>
      typeof item === "object" && item !== null
        ? Number((item as { ContentId?: unknown }).ContentId)
        : Number(item),
    )
    .filter((id) => Number.isSafeInteger(id) && id > 0);
}

type Written = { value: unknown } | { skip: string } | undefined;

function usersGroups(value: unknown, input: RecordExportInput): Written {
  if (typeof value !== "object" || value === null) return undefined;
  const named = (list: unknown, names: ReadonlyMap<number, string>) =>
    (Array.isArray(list) ? list : []).map((item) => {
      const id = Number((item as { Id?: unknown })?.Id);
      return { id, name: names.get(id) };
    });
  const users = named((value as { UserList?: unknown }).UserList, input.users);
  const groups = named((value as { GroupList?: unknown }).GroupList, input.groups);
  const unknown = [...users, ...groups].filter((p) => p.name === undefined).map((p) => p.id);
  if (unknown.length > 0)
    return { skip: `names users or groups the account can't read (ids ${unknown.join(", ")})` };
  if (users.length + groups.length === 0) return undefined;
  return {
    value: {
      ...(users.length > 0 ? { users: users.map((u) => u.name).sort() } : {}),
      ...(groups.length > 0 ? { groups: groups.map((g) => g.name).sort() } : {}),
    },
  };
}

function valuesList(field: ExportField, value: unknown): Written {
  const names = (Array.isArray(value) ? value : value === null || value === undefined ? [] : [value]).map(
    String,
  );
  if (names.length === 0) return undefined;
  const other = names.filter((name) => !field.values.some((v) => v.name === name));
  if (other.length > 0)
    return { skip: `holds other text (${JSON.stringify(other[0])}), which is no value of its list` };
  return { value: names.length === 1 ? names[0] : names };
}

function references(field: ExportField, value: unknown, input: RecordExportInput): Written {
  const ids = contentIds(value);
  if (ids.length === 0) return undefined;
  const target = input.targets.get(field.alias);
  if (!target) return undefined;
  const missing = ids.filter((id) => !target.keys.has(id));
  if (missing.length > 0)
    return { skip: `references records the account can't read (content ids ${missing.join(", ")})` };
  const parts = ids.map((id) => target.keys.get(id) as readonly string[]);
  return { value: parts.map((key) => referenceOf(target, key)) };
}

function links(value: unknown): Written {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  return {
    value: value.map((link) => ({
      name: String((link as { Name?: unknown }).Name ?? ""),
      url: String((link as { URL?: unknown }).URL ?? ""),
    })),
  };
}

/** One field's live value in its manifest form; undefined when empty (the document leaves it out). */
function written(field: ExportField, value: unknown, input: RecordExportInput): Written {
  if (value === null || value === undefined || value === "") return undefined;
  switch (field.type) {
    case FieldType.Text:
    case FieldType.IpAddress:
      return { value: String(value) };
    case FieldType.Numeric:
      return typeof value === "number" ? { value } : undefined;
    case FieldType.Date:
      return { value: String(value).slice(0, 10) };
    case FieldType.ValuesList:
      return valuesList(field, value);
    case FieldType.UsersGroups:
      return usersGroups(value, input);
    case FieldType.ExternalLinks:
      return links(value);
    case FieldType.CrossReference:
    case FieldType.RelatedRecords:
      return references(field, value, input);
    default:
      return undefined;
  }
}

function keyProblem(input: RecordExportInput, what: string, ids: readonly number[]): EgpError {
  return new EgpError(
    "EGP_RECORD_KEY_AMBIGUOUS",
    `export: ${what} in "${input.application}" on ${input.environment} (content id${ids.length === 1 ? "" : "s"} ${ids.join(", ")}); a Record document can't tell them apart by [${input.key.join(", ")}]: give --key fields that do`,
  );
}

/** Each record's key values; refused when a record has none or two records share one. */
function keysOf(input: RecordExportInput, keyFields: readonly ExportField[]): string[][] {
  const keys = input.records.map((record) =>
    keyFields.map((field) => keyPart(record.values[field.alias]) ?? ""),
  );
  const empty = input.records.filter((_, at) => (keys[at] as string[]).some((part) => part === ""));
  if (empty.length > 0)
    throw keyProblem(
      input,
      `${empty.length === 1 ? "a record has" : `${empty.length} records have`} no value in a key field`,
      empty.map((r) => r.id),
    );
  const seen = new Map<string, number>();
  keys.forEach((key, at) => {
    const id = JSON.stringify(key);
    const first = seen.get(id);
    if (first !== undefined)
      throw keyProblem(input, `two records have the key ${key.map((k) => JSON.stringify(k)).join(", ")}`, [
        input.records[first]?.id as number,
        input.records[at]?.id as number,
      ]);
    seen.set(id, at);
  });
  return keys;
}

/** The `keys:` map: each reference target the repository does not give a key for. */
function keysMap(input: RecordExportInput, used: ReadonlySet<string>): Record<string, string[]> | undefined {
  const entries = [...input.targets.entries()]
    .filter(([alias, target]) => used.has(alias) && target.keysEntry !== undefined)
    .map(([, target]): [string, string[]] => [target.keysEntry as string, [...target.key]])
    .sort(([a], [b]) => a.localeCompare(b, "en"));
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/** The level's records as one Record document, key fields first, records sorted by key. */
export function recordDocument(input: RecordExportInput): RecordExport {
  const byName = new Map(input.fields.map((field) => [field.name, field]));
  const keyFields = input.key.map((name) => byName.get(name) as ExportField);
  const keys = keysOf(input, keyFields);
  // A reference field without a target points at several levels: a key can't say which one.
  const writable = (field: ExportField) =>
    expressible(field.type) && (!REFERENCES.has(field.type) || input.targets.has(field.alias));
  const others = input.fields.filter((field) => !input.key.includes(field.name) && writable(field));
  const leftOutFields = input.fields
    .filter((field) => !writable(field))
    .map((field) => `${field.name} (${typeWord(field.type)})`);
  const warnings: string[] = [];
  const used = new Set<string>();
  // In key order, so that the file and its warnings read in the order a person looks them up.
  const order = input.records
    .map((record, at) => ({ record, key: keys[at] as string[] }))
    .sort((a, b) => a.key.join("\u0000").localeCompare(b.key.join("\u0000"), "en"));
  const entries = order.map(({ record, key }) => {
    const entry: Record<string, unknown> = {};
    keyFields.forEach((field, i) => {
      entry[field.name] = field.type === FieldType.Numeric ? Number(key[i]) : key[i];
    });
    for (const field of others) {
      const result = written(field, record.values[field.alias], input);
      if (!result) continue;
      if ("skip" in result) {
        warnings.push(
          `Record ${input.application} ${key.map((k) => JSON.stringify(k)).join(", ")}: ${field.name} left out: it ${result.skip}`,
        );
        continue;
      }
      entry[field.name] = result.value;
      if (input.targets.has(field.alias)) used.add(field.alias);
    }
    return entry;
  });
  const map = keysMap(input, used);
  const document: ExportedDocument = {
    kind: "Record",
    application: input.application,
    ...(input.level === undefined ? {} : { level: input.level }),
    environments: [input.environment],
    key: [...input.key],
    ...(map ? { keys: map } : {}),
    records: entries,
  };
  return { document, leftOutFields, warnings };
}

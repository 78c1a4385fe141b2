import { createHash } from "node:crypto";
import type { DesiredRecords } from "../../manifest/kinds/record.ts";
import { canonicalJson } from "../digest.ts";

/*
 * The records' part of a saved plan's live digest: what the plan depends on, and nothing else, so
 * that the everyday edits of a busy application do not stale a reviewed plan. It covers the level's
 * field definitions that the document names, every record's id and key fields (a record made,
 * deleted or re-keyed changes what keys match, and what a prune or the delete limit counts), and,
 * of the records an entry's key matches, the fields that entry manages. A field no entry manages,
 * or a managed field of a record no entry matches, is left out.
 */

/** What a level's digest covers, from its document: kept with the level as read. */
export interface RecordDigestScope {
  /** The key fields' aliases, in `key` order. */
  keyAliases: string[];
  /** The fields each entry manages beyond its key, by alias, under its key as `matchKey` gives it. */
  managed: Record<string, string[]>;
  /** The names of the fields the document names (key and managed), whose definitions count. */
  named: string[];
}

interface Field {
  name: string;
  alias: string;
}

/** A key as the digest matches it: each part trimmed and lower-cased, so that a case-only match counts too. */
function matchKey(parts: readonly (string | undefined)[]): string {
  return JSON.stringify(parts.map((part) => part?.trim().toLowerCase()));
}

function keyPart(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.length === 1 ? keyPart(value[0]) : undefined;
  if (typeof value === "string") return value.trim() === "" ? undefined : value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

export function digestScope(document: DesiredRecords, fields: readonly Field[]): RecordDigestScope {
  const aliasOf = new Map(fields.map((field) => [field.name, field.alias]));
  const managed: Record<string, string[]> = {};
  for (const entry of document.records) {
    if (entry.ensure === "absent") continue;
    const names = Object.keys(entry.values).filter((name) => !document.key.includes(name));
    managed[matchKey(entry.key)] = names.flatMap((name) => aliasOf.get(name) ?? []).sort();
  }
  const named = new Set([...document.key, ...document.records.flatMap((entry) => Object.keys(entry.values))]);
  return {
    keyAliases: document.key.flatMap((name) => aliasOf.get(name) ?? []),
    managed,
    named: [...named].sort(),
  };
}

interface DigestedLevel {
  application: string;
  scope?: RecordDigestScope;
  fields?: readonly Field[];
  records?: ReadonlyArray<{ id: number; values: Readonly<Record<string, unknown>> }>;
}

/** True when `value` holds no object other than arrays: then plain JSON of it is already canonical. */
function flat(value: unknown): boolean {
  if (value === null || typeof value !== "object") return true;
  return Array.isArray(value) && value.every(flat);
}

/**
 * A level's records, narrowed, as canonical JSON. Most records hold only text, numbers and lists,
 * whose plain JSON is canonical: those skip the canonical writer, which costs several times more
 * over a level of 50,000 records. The text is the same either way (record-digest.test.ts).
 */
function recordsJson(scope: RecordDigestScope, records: NonNullable<DigestedLevel["records"]>): string {
  const pick = (values: Readonly<Record<string, unknown>>, aliases: readonly string[]) =>
    aliases.map((alias) => values[alias] ?? null);
  const tuples = records.map((record) => {
    const key = pick(record.values, scope.keyAliases);
    const managed = scope.managed[matchKey(key.map(keyPart))];
    return managed ? [record.id, key, pick(record.values, managed)] : [record.id, key];
  });
  if (tuples.every(flat)) return JSON.stringify(tuples);
  return `[${tuples.map((tuple) => (flat(tuple) ? JSON.stringify(tuple) : canonicalJson(tuple))).join(",")}]`;
}

/** One level as canonical JSON; a level read without a scope (or not found) counts whole. */
function levelJson(level: DigestedLevel): string {
  const { scope, fields, records, ...rest } = level;
  if (!scope || !fields || !records) return canonicalJson(level) as string;
  const members: Record<string, unknown> = {
    ...rest,
    fields: fields.filter((field) => scope.named.includes(field.name)),
  };
  const keys = [...Object.keys(members).filter((key) => members[key] !== undefined), "records"].sort();
  const body = keys.map((key) =>
    key === "records"
      ? `"records":${recordsJson(scope, records)}`
      : `${JSON.stringify(key)}:${canonicalJson(members[key])}`,
  );
  return `{${body.join(",")}}`;
}

/** The digest of the levels: sha256 of their canonical JSON, as `hash` of the narrowed levels gives it. */
export function recordsDigest(levels: readonly DigestedLevel[]): string {
  return createHash("sha256")
    .update(`[${levels.map(levelJson).join(",")}]`)
    .digest("hex");
}

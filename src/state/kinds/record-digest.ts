import { createHash, type Hash } from "node:crypto";
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

/** A value as canonical JSON; `undefined` as `null`, as in a list. */
function valueJson(value: unknown): string {
  if (value === undefined) return "null";
  return flat(value) ? (JSON.stringify(value) ?? "null") : (canonicalJson(value) ?? "null");
}

/** The fields each entry manages, by the key as its record's values fold it (`matchKey`, or one part folded). */
function managedLookup(
  scope: RecordDigestScope,
): (values: Readonly<Record<string, unknown>>) => string[] | undefined {
  const [single, ...more] = scope.keyAliases;
  if (single === undefined || more.length > 0)
    return (values) =>
      scope.managed[matchKey(scope.keyAliases.map((alias) => keyPart(values[alias] ?? null)))];
  const byPart = new Map<string | undefined, string[]>();
  for (const [key, aliases] of Object.entries(scope.managed)) {
    const parts = JSON.parse(key) as (string | null)[];
    if (parts.length === 1) byPart.set(parts[0] ?? undefined, aliases);
  }
  return (values) =>
    byPart.get(
      keyPart(values[single] ?? null)
        ?.trim()
        .toLowerCase(),
    );
}

/** Hashed text, written in chunks: a level of 50,000 records is never one string. */
class Writer {
  private chunk = "";
  private readonly hash: Hash;
  constructor(hash: Hash) {
    this.hash = hash;
  }
  write(text: string): void {
    this.chunk += text;
    if (this.chunk.length >= 65_536) this.flush();
  }
  flush(): void {
    this.hash.update(this.chunk);
    this.chunk = "";
  }
}

/**
 * A level's records, narrowed, written as canonical JSON: `[id, key]`, or `[id, key, managed]` for
 * a record an entry's key matches. Text, numbers and lists are written as plain JSON, which is
 * canonical for them, and each record without building its tuple: over a level of 50,000 records
 * the canonical writer and the tuples cost most of a plan's CPU and garbage. The bytes are those
 * of the canonical JSON of the tuples (record-digest.test.ts).
 */
function writeRecords(out: Writer, scope: RecordDigestScope, records: NonNullable<DigestedLevel["records"]>) {
  const managedOf = managedLookup(scope);
  const list = (values: Readonly<Record<string, unknown>>, aliases: readonly string[]) => {
    let text = "[";
    for (let at = 0; at < aliases.length; at++)
      text += (at > 0 ? "," : "") + valueJson(values[aliases[at] as string] ?? null);
    return `${text}]`;
  };
  out.write("[");
  records.forEach((record, at) => {
    const managed = managedOf(record.values);
    const tail = managed ? `,${list(record.values, managed)}` : "";
    out.write(
      `${at > 0 ? "," : ""}[${valueJson(record.id)},${list(record.values, scope.keyAliases)}${tail}]`,
    );
  });
  out.write("]");
}

/** One level as canonical JSON; a level read without a scope (or not found) counts whole. */
function writeLevel(out: Writer, level: DigestedLevel): void {
  const { scope, fields, records, ...rest } = level;
  if (!scope || !fields || !records) {
    out.write(canonicalJson(level) ?? "null");
    return;
  }
  const members: Record<string, unknown> = {
    ...rest,
    fields: fields.filter((field) => scope.named.includes(field.name)),
  };
  const keys = [...Object.keys(members).filter((key) => members[key] !== undefined), "records"].sort();
  out.write("{");
  keys.forEach((key, at) => {
    out.write(`${at > 0 ? "," : ""}${JSON.stringify(key)}:`);
    if (key === "records") writeRecords(out, scope, records);
    else out.write(canonicalJson(members[key]) ?? "null");
  });
  out.write("}");
}

/** The digest of the levels: sha256 of their narrowed forms' canonical JSON. */
export function recordsDigest(levels: readonly DigestedLevel[]): string {
  const hash = createHash("sha256");
  const out = new Writer(hash);
  out.write("[");
  levels.forEach((level, at) => {
    if (at > 0) out.write(",");
    writeLevel(out, level);
  });
  out.write("]");
  out.flush();
  return hash.digest("hex");
}

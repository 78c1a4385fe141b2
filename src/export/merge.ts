import stringify from "safe-stable-stringify";
import { parseAllDocuments } from "yaml";
import { EgpError } from "../errors/index.ts";
import type { ExportedDocument } from "./kind.ts";

/*
 * `egp export --env B --out DIR` where DIR already holds an export of A: the file gains B, it does
 * not lose A. A document alike on both (but for `environments:`) lists both; a document that differs
 * gets one per side; B's documents replace what an earlier export of B wrote. The file's documents
 * are egp's own (each scoped with `environments:`); anything else is refused, not overwritten.
 */

export class ExportMergeError extends EgpError {
  constructor(message: string) {
    super("EGP_EXPORT_MERGE", message);
    this.name = "ExportMergeError";
  }
}

/** Reads back a value as the manifest holds it: `$${` is the escape for a literal `${`. */
function unescapeManifest(value: unknown): unknown {
  if (typeof value === "string") return value.replaceAll("$${", "${");
  if (Array.isArray(value)) return value.map(unescapeManifest);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, unescapeManifest(item)]));
  return value;
}

function environmentsOf(doc: ExportedDocument): string[] {
  const listed = doc.environments;
  return Array.isArray(listed) ? listed.filter((e): e is string => typeof e === "string") : [];
}

/** What a document says, but for the environments it is scoped to. */
function contentOf(doc: ExportedDocument): string {
  const { environments: _, ...rest } = doc;
  return stringify(rest) ?? "";
}

/** The document with `environments` set, kept in its place among the keys. */
function scoped(doc: ExportedDocument, environments: readonly string[]): ExportedDocument {
  return Object.fromEntries(
    Object.entries(doc).map(([key, value]) => [key, key === "environments" ? [...environments] : value]),
  );
}

export interface MergeInput {
  /** The file as it is on disk. */
  file: string;
  text: string;
  kind: string;
  /** The field that holds a document's key (`userName`); keys match case-insensitively. */
  key: string;
  environment: string;
  /** What this export wrote for `environment`. */
  documents: readonly ExportedDocument[];
  /** With `--target`: only these keys are this export's to change; the rest stay as they are. */
  owns?: (key: string) => boolean;
}

function existingDocuments(input: MergeInput): ExportedDocument[] {
  const parsed = parseAllDocuments(input.text);
  const documents: ExportedDocument[] = [];
  for (const [index, document] of (Array.isArray(parsed) ? parsed : [parsed]).entries()) {
    if (document.errors.length > 0)
      throw new ExportMergeError(
        `${input.file}: not YAML egp can merge into (${document.errors[0]?.message}); write to another --out`,
      );
    const value = unescapeManifest(document.toJS()) as unknown;
    if (value === null || value === undefined) continue;
    const doc = value as ExportedDocument;
    if (
      typeof value !== "object" ||
      Array.isArray(value) ||
      doc.kind !== input.kind ||
      typeof doc[input.key] !== "string"
    )
      throw new ExportMergeError(
        `${input.file}: document ${index + 1} is not a ${input.kind} egp exported; write to another --out`,
      );
    if (environmentsOf(doc).length === 0)
      throw new ExportMergeError(
        `${input.file}: ${input.kind} ${String(doc[input.key])} is not scoped to environments, so it can't gain or lose one; write to another --out`,
      );
    documents.push(doc);
  }
  return documents;
}

/** The top-level fields two documents of one key disagree on, the environments left aside. */
function fieldsDiffering(a: ExportedDocument, b: ExportedDocument): string[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => k !== "environments");
  return keys.filter((k) => stringify(a[k]) !== stringify(b[k])).sort();
}

/**
 * The file's documents with this export's merged in, sorted by key, and what the file held for this
 * environment that the export replaces (a field the instance does not have) or drops (an object the
 * instance does not have): a local edit the export would lose.
 */
export function mergeExported(input: MergeInput): { documents: ExportedDocument[]; overwrites: string[] } {
  const env = input.environment;
  const keyOf = (doc: ExportedDocument) => String(doc[input.key]).toLowerCase();
  const owns = (doc: ExportedDocument) => input.owns?.(String(doc[input.key])) ?? true;
  const same = (a: ExportedDocument, b: ExportedDocument) =>
    keyOf(a) === keyOf(b) && contentOf(a) === contentOf(b);
  const fresh = [...input.documents];
  const overwrites: string[] = [];
  const lost = (doc: ExportedDocument) => {
    const name = `${input.kind} ${String(doc[input.key])}`;
    const other = input.documents.find((d) => keyOf(d) === keyOf(doc));
    overwrites.push(
      other ? `${name}: ${fieldsDiffering(doc, other).join(", ")}` : `${name}: not on the instance, removed`,
    );
  };
  // What an earlier export of this environment wrote stays where this one writes the same; the rest
  // of it is this environment's no longer.
  const kept = existingDocuments(input).flatMap((doc) => {
    if (!owns(doc) || !environmentsOf(doc).includes(env)) return [doc];
    const again = fresh.findIndex((other) => same(doc, other));
    if (again >= 0) {
      fresh.splice(again, 1);
      return [doc];
    }
    lost(doc);
    const others = environmentsOf(doc).filter((e) => e !== env);
    return others.length > 0 ? [scoped(doc, others)] : [];
  });
  const added: ExportedDocument[] = [];
  for (const doc of fresh) {
    const twin = kept.findIndex((other) => same(other, doc));
    const found = kept[twin];
    if (found) kept[twin] = scoped(found, [...environmentsOf(found), env]);
    else added.push(doc);
  }
  // Sorted by key (docs/manifests.md), a key's documents in the order they were: stable.
  const documents = [...kept, ...added].sort((a, b) => keyOf(a).localeCompare(keyOf(b), "en"));
  return { documents, overwrites };
}

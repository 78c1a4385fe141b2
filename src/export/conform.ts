import type { z } from "zod";
import type { ExportedDocument } from "./kind.ts";

/**
 * Makes a document pass its kind's schema by leaving out the fields whose live value a manifest
 * can't express (a negative count, a malformed time): such a field becomes unmanaged, so the next
 * plan still shows no change for it. A document whose key or required fields fail is dropped.
 * Returns the document (or null) and a warning per field left out.
 */
export function conform(
  doc: ExportedDocument,
  schema: z.ZodType,
  label: string,
  required: readonly string[],
): { doc: ExportedDocument | null; warnings: string[] } {
  const warnings: string[] = [];
  const current = { ...doc };
  // Each round removes at least one key, so this ends.
  for (;;) {
    const parsed = schema.safeParse(current);
    if (parsed.success) return { doc: current, warnings };
    const failing = new Set(parsed.error.issues.map((issue) => String(issue.path[0] ?? "")));
    const fatal = [...failing].find((key) => key === "" || required.includes(key) || !(key in current));
    if (fatal !== undefined) {
      warnings.push(`${label}: not exported (${fatal || "document"} can't be written as a manifest)`);
      return { doc: null, warnings };
    }
    for (const key of failing) {
      warnings.push(`${label}: ${key} left out (its live value can't be written as a manifest)`);
      delete current[key];
    }
  }
}

/**
 * Writes one document per item and keeps those that pass the kind's own manifest schema (`kind`,
 * its document kind), so that export never writes a file `egp validate` would refuse.
 */
export function conformEach<T>(
  kind: { schema: z.ZodType },
  items: readonly T[],
  write: (item: T) => { doc: ExportedDocument; warnings: string[]; label: string },
  required: readonly string[],
): { documents: ExportedDocument[]; warnings: string[] } {
  const { schema } = kind;
  const result = { documents: [] as ExportedDocument[], warnings: [] as string[] };
  for (const item of items) {
    const { doc, warnings, label } = write(item);
    const conformed = conform(doc, schema, label, required);
    result.warnings.push(...warnings, ...conformed.warnings);
    if (conformed.doc) result.documents.push(conformed.doc);
  }
  return result;
}

import type { Change, FieldChange } from "../model.ts";
import { partLine } from "./parts.ts";

/** A value as the plan prints it: compact JSON, with strings quoted. */
export function formatValue(value: unknown): string {
  if (value === undefined) return "(unset)";
  if (typeof value === "string") return JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

export const SYMBOL: Record<Change["action"], string> = {
  create: "+",
  update: "~",
  delete: "-",
  deactivate: "-",
  promote: "»",
  rollback: "«",
};

const VERB: Record<Change["action"], string> = {
  create: "will be created",
  update: "will be updated in place",
  delete: "will be DELETED",
  deactivate: "will be DEACTIVATED",
  promote: "will be promoted",
  rollback: "will be rolled back",
};

export function headline(change: Change): string {
  const where = change.source ? ` (${change.source.file}:${change.source.line}:${change.source.column})` : "";
  return `# ${change.kind} "${change.key}" ${VERB[change.action]}${where}`;
}

/** The type word a package field starts with (`SubForm Comments`), for how its module part is named. */
export function objectTypeOf(field: FieldChange): string {
  return field.field.split(" ", 1)[0] ?? "";
}

/**
 * The lines under a change: one per field, and under a package object's line one per differing part
 * (unless `parts` is false: markdown folds those per object).
 */
export function fieldLines(change: Change, options: { parts?: boolean } = {}): string[] {
  const lines = change.fields.flatMap((field) => {
    const mark = change.action === "create" ? "+" : change.action === "delete" ? "-" : "~";
    const tag = field.verifiable ? "" : " (enforced, not verifiable)";
    const line =
      field.before === undefined
        ? `${mark} ${field.field}: ${formatValue(field.after)}${tag}`
        : `${mark} ${field.field}: ${formatValue(field.before)} -> ${formatValue(field.after)}${tag}`;
    if (options.parts === false || !field.parts) return [line];
    const type = objectTypeOf(field);
    return [line, ...field.parts.map((part) => `    ${partLine(part, type)}`)];
  });
  return [...lines, ...change.notes.map((note) => `# ${note}`)];
}

export function summaryLine(summary: {
  add: number;
  change: number;
  destroy: number;
  promote: number;
}): string {
  return `Plan: ${summary.add} to add, ${summary.change} to change, ${summary.destroy} to destroy, ${summary.promote} to promote.`;
}

export function unmanagedLine(unmanaged: readonly { kind: string }[]): string | undefined {
  if (unmanaged.length === 0) return undefined;
  const counts = new Map<string, number>();
  for (const item of unmanaged) counts.set(item.kind, (counts.get(item.kind) ?? 0) + 1);
  const parts = [...counts].map(([kind, count]) => `${count} ${kind}${count === 1 ? "" : "s"}`);
  return `Unmanaged, left alone (not in the manifests; see PrunePolicy): ${parts.join(", ")}.`;
}

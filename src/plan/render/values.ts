import type { Change } from "../model.ts";

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
};

const VERB: Record<Change["action"], string> = {
  create: "will be created",
  update: "will be updated in place",
  delete: "will be DELETED",
  deactivate: "will be DEACTIVATED",
  promote: "will be promoted",
};

export function headline(change: Change): string {
  const where = change.source ? ` (${change.source.file}:${change.source.line}:${change.source.column})` : "";
  return `# ${change.kind} "${change.key}" ${VERB[change.action]}${where}`;
}

/** The lines under a change: one per field. */
export function fieldLines(change: Change): string[] {
  const lines = change.fields.map((field) => {
    const mark = change.action === "create" ? "+" : change.action === "delete" ? "-" : "~";
    const tag = field.verifiable ? "" : " (enforced, not verifiable)";
    if (field.before === undefined) return `${mark} ${field.field}: ${formatValue(field.after)}${tag}`;
    return `${mark} ${field.field}: ${formatValue(field.before)} -> ${formatValue(field.after)}${tag}`;
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

export function excludedLine(excluded: readonly { kind: string; key: string }[]): string | undefined {
  if (excluded.length === 0) return undefined;
  const names = excluded.map((item) => `${item.kind} "${item.key}"`).join(", ");
  return `Excluded, never pruned (PrunePolicy exclude): ${names}.`;
}

/** `partial plan: 1 of 12 objects targeted (--target User/kmurphy)`, for a plan made with --target. */
export function partialLine(plan: {
  partial?: { targeted: number; of: number };
  options: { targets?: readonly string[] };
}): string | undefined {
  if (!plan.partial) return undefined;
  const targets = (plan.options.targets ?? []).map((t) => `--target ${t}`).join(" ");
  return `partial plan: ${plan.partial.targeted} of ${plan.partial.of} objects targeted (${targets})`;
}

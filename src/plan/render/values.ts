import type { FieldWords } from "../../manifest/index.ts";
import { type Change, type FieldChange, SENSITIVE } from "../model.ts";
import { partLine } from "./parts.ts";
import { printable } from "./printable.ts";
import { referencesText } from "./references.ts";

/** How a plan is rendered for people (text and markdown). */
export interface RenderOptions {
  /** `drift` says that the environment has drifted, where `plan` says what apply will do. */
  view?: "plan" | "drift";
  /**
   * Each kind's manifest words (`fieldWordsOf` of the manifest stage): fields then show by their
   * manifest names with values as manifests write them. Without, as the plan JSON names them.
   */
  words?: (kind: string) => FieldWords | undefined;
}

/** A value as the plan prints it: compact JSON, with strings quoted, on one line (printable.ts). */
export function formatValue(value: unknown): string {
  if (value === undefined) return "(unset)";
  const references = referencesText(value);
  if (references !== undefined) return printable(references);
  if (typeof value === "string") return printable(JSON.stringify(value));
  return printable(JSON.stringify(value) ?? String(value));
}

/** A name as the text renderers quote it, on one line: `"jdoe"`. */
export function quoted(name: string): string {
  return `"${printable(name)}"`;
}

/** How a change's object is named: its label as the kind wrote it, or its key, quoted. */
function nameOf(change: Change): string {
  return change.label === undefined ? quoted(change.key) : printable(change.label);
}

/** The line that names a change's object: `+ User "jdoe"`. */
export function objectLine(change: Change): string {
  return `${SYMBOL[change.action]} ${printable(change.kind)} ${nameOf(change)}`;
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

/** What a drift report says of each change: what differs, and what apply would do about it. */
const DRIFT_VERB: Record<Change["action"], string> = {
  create: "is missing (apply would create it)",
  update: "has drifted (apply would update it in place)",
  delete: "is not in the manifests (apply would DELETE it)",
  deactivate: "is not in the manifests (apply would DEACTIVATE it)",
  promote: "differs from its source (apply would promote it)",
  rollback: "differs from its release (apply would roll it back)",
};

export function headline(change: Change, view: RenderOptions["view"] = "plan"): string {
  const where = change.source
    ? ` (${printable(change.source.file)}:${change.source.line}:${change.source.column})`
    : "";
  const verb = view === "drift" ? DRIFT_VERB[change.action] : VERB[change.action];
  return `# ${printable(change.kind)} ${nameOf(change)} ${verb}${where}`;
}

/** A field as people read it: by its manifest name and value where its kind has words. */
function inWords(field: FieldChange, words: FieldWords | undefined): FieldChange {
  const word = words?.[field.field];
  if (!word) return field;
  const shown = (value: unknown) =>
    word.value && value !== undefined && value !== null && value !== SENSITIVE ? word.value(value) : value;
  const out: FieldChange = { ...field, field: word.name, after: shown(field.after) };
  if (field.before !== undefined) out.before = shown(field.before);
  return out;
}

/**
 * A field whose desired value came from `${VAR}`: its reference, and that it changes (a field is
 * listed only when it does), never a value.
 */
function sensitiveLine(mark: string, name: string, references: readonly string[], action: Change["action"]) {
  const how = action === "create" ? "sensitive" : "sensitive, changes";
  return `${mark} ${name}: ${references.join(" ")} (${how})`;
}

/** Why a package holds an object its document does not name: `added as a dependency of Findings (field Related Control)`. */
export function dependencyWords(dependency: NonNullable<FieldChange["dependencyOf"]>): string {
  return `added as a dependency of ${printable(dependency.object)} (field ${printable(dependency.field)})`;
}

/** The type word a package field starts with (`SubForm Comments`), for how its module part is named. */
export function objectTypeOf(field: FieldChange): string {
  return field.field.split(" ", 1)[0] ?? "";
}

/**
 * The lines under a change: one per field, and under a package object's line one per differing part
 * (unless `parts` is false: markdown folds those per object).
 */
export function fieldLines(change: Change, options: RenderOptions & { parts?: boolean } = {}): string[] {
  const words = options.words?.(change.kind);
  const changed = new Set(change.fields.map((field) => field.field));
  const mark = change.action === "create" ? "+" : change.action === "delete" ? "-" : "~";
  const lines = change.fields
    .filter((field) => {
      const by = words?.[field.field]?.shownBy;
      return !(by && changed.has(by));
    })
    .flatMap((wire) => {
      const field = inWords(wire, words);
      const tag = field.verifiable ? "" : " (enforced, not verifiable)";
      const name = printable(field.field);
      const line = field.sensitive
        ? sensitiveLine(mark, name, field.sensitive.map(printable), change.action) + tag
        : field.before === undefined
          ? `${mark} ${name}: ${formatValue(field.after)}${tag}`
          : `${mark} ${name}: ${formatValue(field.before)} -> ${formatValue(field.after)}${tag}`;
      const added = wire.dependencyOf ? `${line} (${dependencyWords(wire.dependencyOf)})` : line;
      if (options.parts === false || !wire.parts) return [added];
      const type = objectTypeOf(wire);
      return [added, ...wire.parts.map((part) => `    ${partLine(part, type)}`)];
    });
  return [...lines, ...change.notes.map((note) => `# ${printable(note)}`)];
}

export function summaryLine(
  summary: {
    add: number;
    change: number;
    destroy: number;
    promote: number;
  },
  view: RenderOptions["view"] = "plan",
): string {
  const counts = `${summary.add} to add, ${summary.change} to change, ${summary.destroy} to destroy, ${summary.promote} to promote.`;
  return `${view === "drift" ? "Drift" : "Plan"}: ${counts}`;
}

export function unmanagedLine(unmanaged: readonly { kind: string }[]): string | undefined {
  if (unmanaged.length === 0) return undefined;
  const counts = new Map<string, number>();
  for (const item of unmanaged) counts.set(item.kind, (counts.get(item.kind) ?? 0) + 1);
  const parts = [...counts].map(([kind, count]) => `${count} ${kind}${count === 1 ? "" : "s"}`);
  return `Unmanaged, left alone (not in the manifests; see PrunePolicy): ${parts.join(", ")}.`;
}

/** The parts a plan did not read, so that no count of their unmanaged objects is taken for none. */
export function notReadLine(notRead: readonly string[] | undefined): string | undefined {
  if (!notRead || notRead.length === 0) return undefined;
  return `Not read (no manifest manages them, no PrunePolicy names them): ${notRead.join(", ")}.`;
}

/** `name` shows a name from the manifests: quoted in text, in code in markdown. */
export function excludedLine(
  excluded: readonly { kind: string; key: string }[],
  name: (text: string) => string = quoted,
): string | undefined {
  if (excluded.length === 0) return undefined;
  const names = excluded.map((item) => `${printable(item.kind)} ${name(item.key)}`).join(", ");
  return `Excluded, never pruned (PrunePolicy exclude): ${names}.`;
}

/** `partial plan: 1 of 12 objects targeted (--target User/kmurphy)`, for a plan made with --target. */
export function partialLine(
  plan: {
    partial?: { targeted: number; of: number };
    options: { targets?: readonly string[] };
  },
  name: (text: string) => string = printable,
): string | undefined {
  if (!plan.partial) return undefined;
  const targets = (plan.options.targets ?? []).map((t) => name(`--target ${t}`)).join(" ");
  if (plan.partial.targeted === 0)
    return `${targets} matches none of the ${plan.partial.of} objects the plan read: nothing is planned; check the kind and the name (names match without regard to case)`;
  return `partial plan: ${plan.partial.targeted} of ${plan.partial.of} objects targeted (${targets})`;
}

import type { Change, FieldChange, Plan } from "../model.ts";
import { code, escapeHtml, fenceFor, foldedDiff } from "./folds.ts";
import { freezeLines, rejectedLines } from "./notices.ts";
import { partLine } from "./parts.ts";
import { printable } from "./printable.ts";
import {
  excludedLine,
  fieldLines,
  formatValue,
  headline,
  notReadLine,
  objectLine,
  objectTypeOf,
  partialLine,
  type RenderOptions,
  summaryLine,
  unmanagedLine,
} from "./values.ts";

/** GitHub caps a comment at 65,536 characters; the default leaves room for a wrapper. */
export const DEFAULT_MARKDOWN_LIMIT = 60_000;

/** A change as markdown: its text in the kind's diff fence, and a folded block per package object. */
interface Entry {
  main: string;
  /** One folded `<details>` block per package object with differing parts. */
  folds: string[];
}

function fold(change: Change, field: FieldChange): string | undefined {
  if (!field.parts?.length) return undefined;
  const type = objectTypeOf(field);
  const lines = field.parts.map((part) => partLine(part, type));
  const after = typeof field.after === "string" ? field.after : formatValue(field.after);
  // foldedDiff keeps the summary in code: the key and the object's name are data.
  return foldedDiff(`${change.kind} "${change.key}" · ${field.field}: ${after}`, lines);
}

function entry(change: Change, options: RenderOptions): Entry {
  const main = [
    headline(change, options.view),
    objectLine(change),
    ...fieldLines(change, { ...options, parts: false }).map((line) => `    ${line}`),
    "",
  ].join("\n");
  const folds = change.fields.flatMap((field) => fold(change, field) ?? []);
  return { main, folds };
}

function block(kind: string, entries: readonly Entry[], total: number): string {
  const mains = entries.map((e) => e.main);
  const fence = fenceFor(mains);
  const count = entries.length === total ? `${total}` : `${entries.length} of ${total} shown`;
  return [
    `<details><summary>${escapeHtml(printable(kind))} (${count})</summary>`,
    "",
    `${fence}diff`,
    ...mains,
    fence,
    "",
    ...entries.flatMap((e) => e.folds),
    "</details>",
    "",
  ].join("\n");
}

function title(plan: Plan, view: RenderOptions["view"]): string {
  const env = code(plan.environment);
  if (view !== "drift") return `### egp plan for ${env}`;
  return plan.changes.length === 0
    ? `### egp drift: ${env} matches the manifests`
    : `### egp drift: ${env} has drifted`;
}

function header(plan: Plan, view: RenderOptions["view"]): string {
  const { add, change, destroy, promote } = plan.summary;
  const none = view === "drift" ? "No drift." : "No changes.";
  const body =
    plan.changes.length === 0
      ? `${none} ${code(plan.environment)} matches the manifests.`
      : [
          "| add | change | destroy | promote |",
          "|---:|---:|---:|---:|",
          `| ${add} | ${change} | ${destroy} | ${promote} |`,
          ...(destroy > 0 ? ["", `**Warning: this plan deletes ${destroy} resource(s).**`] : []),
        ].join("\n");
  const partial = partialLine(plan, code);
  const notices = [...freezeLines(plan.freeze, code), ...rejectedLines(plan.rejectedRelease, code)];
  return [
    ...notices.flatMap((line) => [line, ""]),
    title(plan, view),
    "",
    ...(partial ? [`_${partial}_`, ""] : []),
    body,
    "",
  ].join("\n");
}

/**
 * Markdown for pull requests: a summary table, then the changes folded per kind, and each promoted
 * object's parts folded on their own. Over `limit` characters, changes are dropped from the end of
 * each kind's list in plan order, then the objects' part lists that no longer fit (so the same plan
 * always renders the same), and a notice says how many changes, part lists and characters were cut.
 */
export function renderMarkdown(
  plan: Plan,
  limit = DEFAULT_MARKDOWN_LIMIT,
  options: RenderOptions = {},
): string {
  const head = header(plan, options.view);
  const tail = [
    unmanagedLine(plan.unmanaged),
    notReadLine(plan.notRead),
    excludedLine(plan.excluded ?? [], code),
    plan.changes.length ? summaryLine(plan.summary, options.view) : undefined,
    `<sub>plan ${/^[\w.-]+$/.test(plan.id) ? plan.id : code(plan.id)}</sub>`,
  ]
    .filter(Boolean)
    .join("\n\n");
  const kinds = [...new Set(plan.changes.map((c) => c.kind))].map((kind) => ({
    kind,
    entries: plan.changes.filter((c) => c.kind === kind).map((c) => entry(c, options)),
  }));

  const full = [head, ...kinds.map((k) => block(k.kind, k.entries, k.entries.length)), tail].join("\n");
  if (full.length <= limit) return `${full}\n`;

  // Budget: what the head, the tail, the notice and each block's frame take is reserved first.
  const NOTICE_ROOM = 300;
  let budget =
    limit -
    head.length -
    tail.length -
    NOTICE_ROOM -
    kinds.reduce((n, k) => n + block(k.kind, [], 1).length + 20, 0);
  // First every change that fits (each kind's list in plan order), then, with what is left, the
  // folded part lists of the promoted objects in the same order: a reviewer sees every change first.
  let cut = 0;
  let cutFolds = 0;
  const kept = kinds.map(({ entries }) =>
    entries.filter(({ main, folds }) => {
      if (main.length + 1 > budget) {
        cut += 1;
        cutFolds += folds.length;
        return false;
      }
      budget -= main.length + 1;
      return true;
    }),
  );
  const blocks = kinds.map(({ kind, entries }, index) => {
    const shown = (kept[index] ?? []).map(({ main, folds }) => ({
      main,
      folds: folds.filter((text) => {
        if (text.length + 1 > budget) {
          cutFolds += 1;
          return false;
        }
        budget -= text.length + 1;
        return true;
      }),
    }));
    return shown.length ? block(kind, shown, entries.length) : "";
  });
  const shown = [head, ...blocks.filter(Boolean), tail].join("\n");
  const what = [
    cut ? `${cut} change(s)` : "",
    cutFolds ? `the part-by-part diff of ${cutFolds} package object(s)` : "",
  ].filter(Boolean);
  const notice = `> **Cut:** ${what.join(" and ")} (${full.length - shown.length} characters) are not shown, to stay within GitHub's comment size limit. The full plan is in the plan file.`;
  return `${[head, ...blocks.filter(Boolean), notice, "", tail].join("\n")}\n`;
}

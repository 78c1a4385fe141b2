import type { Change, Plan } from "../model.ts";
import {
  excludedLine,
  fieldLines,
  headline,
  partialLine,
  SYMBOL,
  summaryLine,
  unmanagedLine,
} from "./values.ts";

/** GitHub caps a comment at 65,536 characters; the default leaves room for a wrapper. */
export const DEFAULT_MARKDOWN_LIMIT = 60_000;

function entry(change: Change): string {
  return [
    headline(change),
    `${SYMBOL[change.action]} ${change.kind} "${change.key}"`,
    ...fieldLines(change).map((line) => `    ${line}`),
    "",
  ].join("\n");
}

function block(kind: string, entries: readonly string[], total: number): string {
  const fence = entries.some((text) => text.includes("```")) ? "````" : "```";
  const count = entries.length === total ? `${total}` : `${entries.length} of ${total} shown`;
  return [
    `<details><summary>${kind} (${count})</summary>`,
    "",
    `${fence}diff`,
    ...entries,
    fence,
    "",
    "</details>",
    "",
  ].join("\n");
}

function header(plan: Plan): string {
  const { add, change, destroy, promote } = plan.summary;
  const body =
    plan.changes.length === 0
      ? `No changes. \`${plan.environment}\` matches the manifests.`
      : [
          "| add | change | destroy | promote |",
          "|---:|---:|---:|---:|",
          `| ${add} | ${change} | ${destroy} | ${promote} |`,
          ...(destroy > 0 ? ["", `**Warning: this plan deletes ${destroy} resource(s).**`] : []),
        ].join("\n");
  const partial = partialLine(plan);
  return [
    `### egp plan for \`${plan.environment}\``,
    "",
    ...(partial ? [`_${partial}_`, ""] : []),
    body,
    "",
  ].join("\n");
}

/**
 * Markdown for pull requests: a summary table, then the changes folded per kind. Over `limit`
 * characters, changes are dropped from the end of each kind's list in plan order (so the same plan
 * always renders the same), and a notice says how many changes and characters were cut.
 */
export function renderMarkdown(plan: Plan, limit = DEFAULT_MARKDOWN_LIMIT): string {
  const head = header(plan);
  const tail = [
    unmanagedLine(plan.unmanaged),
    excludedLine(plan.excluded ?? []),
    plan.changes.length ? summaryLine(plan.summary) : undefined,
    `<sub>plan ${plan.id}</sub>`,
  ]
    .filter(Boolean)
    .join("\n\n");
  const kinds = [...new Set(plan.changes.map((c) => c.kind))].map((kind) => ({
    kind,
    entries: plan.changes.filter((c) => c.kind === kind).map(entry),
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
  let cut = 0;
  const blocks = kinds.map(({ kind, entries }) => {
    const kept: string[] = [];
    for (const text of entries) {
      if (text.length + 1 <= budget) {
        kept.push(text);
        budget -= text.length + 1;
      }
    }
    cut += entries.length - kept.length;
    return kept.length ? block(kind, kept, entries.length) : "";
  });
  const shown = [head, ...blocks.filter(Boolean), tail].join("\n");
  const notice = `> **Cut:** ${cut} change(s) (${full.length - shown.length} characters) are not shown, to stay within GitHub's comment size limit. The full plan is in the plan file.`;
  return `${[head, ...blocks.filter(Boolean), notice, "", tail].join("\n")}\n`;
}

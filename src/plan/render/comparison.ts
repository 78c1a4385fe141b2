import type { ComparedObject, Comparison, ComparisonStatus } from "../compare-instances.ts";
import type { DiffCounts, PropertyDifference } from "../package-diff.ts";
import { code, foldedDiff } from "./folds.ts";
import { DEFAULT_MARKDOWN_LIMIT } from "./markdown.ts";
import { formatPartValue, partLine, type StatusWords } from "./parts.ts";
import { printable, printableLines } from "./printable.ts";

/* `egp compare` as text, markdown and JSON (the HTML report is comparison-html.ts). */

export const GROUP_TITLE: Record<ComparisonStatus, string> = {
  mismatched: "Mismatched",
  missingInTarget: "Missing in target",
  missingInSource: "Missing in source",
  matched: "Matched",
};

const GROUP_MARK: Record<ComparisonStatus, string> = {
  mismatched: "~",
  missingInTarget: "+",
  missingInSource: "-",
  matched: "=",
};

/**
 * A part on A only is missing in B, and the other way round. A changed property names both sides,
 * source first, as the title `A → B` does: `required: dev true, prod false`.
 */
export function compareWords(comparison: Comparison): StatusWords {
  return {
    added: `missing in ${comparison.to}`,
    onlyOnTarget: `missing in ${comparison.from}`,
    property: (difference) => compareProperty(difference, comparison),
  };
}

/** A property that differs, with each side's value labelled, the source's (A's) first. */
export function compareProperty(difference: PropertyDifference, comparison: Comparison): string {
  const { property, before, after } = difference;
  // The diff's `after` is the source's value (what a promotion brings), `before` the target's.
  if (before === undefined) {
    const listed =
      Array.isArray(after) && after.length ? ` (${after.map((v) => JSON.stringify(v)).join(", ")})` : "";
    return `${property} only on ${comparison.from}${listed}`;
  }
  if (after === undefined) return `${property} only on ${comparison.to}`;
  return `${property}: ${comparison.from} ${formatPartValue(after)}, ${comparison.to} ${formatPartValue(before)}`;
}

export function describeCompareCounts(counts: DiffCounts): string {
  const words = [
    counts.added ? `${counts.added} missing in target` : "",
    counts.changed ? `${counts.changed} mismatched` : "",
    counts.onlyOnTarget ? `${counts.onlyOnTarget} missing in source` : "",
  ].filter(Boolean);
  const critical = counts.critical ? ` (${counts.critical} critical)` : "";
  return `${words.join(", ") || "no parts differ"}${critical}`;
}

function describeParts(parts: Record<string, number> | undefined): string {
  return Object.entries(parts ?? {})
    .filter(([, count]) => count > 0)
    .map(([part, count]) => `${count} ${count === 1 ? part.replace(/s$/, "") : part}`)
    .join(", ");
}

/** What the object's line says after its name. */
export function objectSummary(object: ComparedObject, comparison: Comparison): string {
  if (object.status === "matched") return describeParts(object.fromParts) || "alike";
  if (object.status === "missingInSource")
    return `not on ${comparison.from} (${describeParts(object.toParts) || "empty"})`;
  if (object.status === "missingInTarget")
    return `not on ${comparison.to} (${describeParts(object.fromParts) || "empty"})`;
  return describeCompareCounts(object.counts);
}

export function objectTitle(object: ComparedObject): string {
  return `${object.type} ${printable(JSON.stringify(object.name))}`;
}

export function summaryLines(comparison: Comparison): string[] {
  const { summary } = comparison;
  return [
    `${summary.mismatched} mismatched, ${summary.missingInTarget} missing in target, ${summary.missingInSource} missing in source, ${summary.matched} matched (${summary.objects} compared)`,
    `parts: ${describeCompareCounts(summary.parts)}`,
  ];
}

function objectLines(object: ComparedObject, comparison: Comparison): string[] {
  const words = compareWords(comparison);
  return [
    `${GROUP_MARK[object.status]} ${objectTitle(object)}: ${objectSummary(object, comparison)}`,
    ...object.parts.map((part) => `    ${partLine(part, object.type, words)}`),
  ];
}

export function renderComparisonText(comparison: Comparison): string {
  const lines = [
    `egp compare: ${printable(comparison.from)} → ${printable(comparison.to)}`,
    "",
    ...summaryLines(comparison).map((line) => `  ${line}`),
  ];
  for (const status of Object.keys(GROUP_TITLE) as ComparisonStatus[]) {
    const objects = comparison.objects.filter((o) => o.status === status);
    if (objects.length === 0) continue;
    lines.push("", `${GROUP_TITLE[status]} (${objects.length})`);
    for (const object of objects) lines.push(...objectLines(object, comparison).map((line) => `  ${line}`));
  }
  const verdict =
    comparison.summary.matched === comparison.summary.objects
      ? `${comparison.from} and ${comparison.to} match.`
      : `${comparison.from} and ${comparison.to} differ.`;
  lines.push("", printable(verdict));
  // Each name is made printable where it is written; this pass is the net under all of them.
  return `${printableLines(lines.join("\n"))}\n`;
}

export function renderComparisonJson(comparison: Comparison): string {
  return `${JSON.stringify(comparison, null, 2)}\n`;
}

function fold(object: ComparedObject, comparison: Comparison): string {
  const words = compareWords(comparison);
  const lines = object.parts.map((part) => partLine(part, object.type, words));
  const summary = `${GROUP_TITLE[object.status]} · ${objectTitle(object)}: ${objectSummary(object, comparison)}`;
  if (lines.length === 0) return `- ${code(summary)}\n`;
  return foldedDiff(summary, lines);
}

/**
 * Markdown for an issue or a pull request: the summary table, then one folded block per object that
 * differs and a list of those that match. Over `limit`, objects are dropped from the end (the
 * matched ones first, as they come last), and a notice says how many.
 */
export function renderComparisonMarkdown(comparison: Comparison, limit = DEFAULT_MARKDOWN_LIMIT): string {
  const { summary } = comparison;
  const head = [
    `### egp compare: ${code(comparison.from)} → ${code(comparison.to)}`,
    "",
    "| matched | mismatched | missing in target | missing in source | critical |",
    "|---:|---:|---:|---:|---:|",
    `| ${summary.matched} | ${summary.mismatched} | ${summary.missingInTarget} | ${summary.missingInSource} | ${summary.parts.critical} |`,
    "",
    `Parts: ${describeCompareCounts(summary.parts)}.`,
    "",
  ].join("\n");
  const entries = comparison.objects.map((object) => fold(object, comparison));
  const NOTICE_ROOM = 300;
  let budget = limit - head.length - NOTICE_ROOM;
  const kept: string[] = [];
  for (const entry of entries) {
    if (entry.length + 1 > budget) break;
    kept.push(entry);
    budget -= entry.length + 1;
  }
  const cut = entries.length - kept.length;
  const notice = cut
    ? [
        `> **Cut:** ${cut} object(s) are not shown, to stay within GitHub's comment size limit. \`--format json\` has them all.`,
        "",
      ]
    : [];
  return `${[head, ...kept, ...notice].join("\n")}\n`;
}

import type { ComparedObject, ComparedPart, Comparison, ComparisonStatus } from "../compare-instances.ts";
import type { PartDifference } from "../package-diff.ts";
import {
  compareProperty,
  compareWords,
  describeCompareCounts,
  GROUP_TITLE,
  objectSummary,
} from "./comparison.ts";
import { escapeHtml } from "./folds.ts";
import { badge, htmlPage } from "./html-page.ts";
import { describePart, formatPartValue, partLabel } from "./parts.ts";

/* `egp compare --format html`: sections fold with <details> (html-page.ts says what every page keeps). */

const STYLE = `
.mismatched { background: #fff1c2; color: #6b4500; }
.missingInTarget { background: #fff1e5; color: #953800; }
.missingInSource { background: #ffe2e0; color: #82071e; }
.matched { background: #eaeef2; color: #424a53; }
.critical { background: #cf222e; color: #fff; }
.normal { background: #eaeef2; color: #424a53; }
tr.severity-critical td { background: #fff5f5; }
`;

const PART_STATUS_CLASS: Record<PartDifference["status"], ComparisonStatus> = {
  added: "missingInTarget",
  changed: "mismatched",
  onlyOnTarget: "missingInSource",
};

function partRow(part: ComparedPart, object: ComparedObject, comparison: Comparison): string {
  const words = compareWords(comparison);
  const status = PART_STATUS_CLASS[part.status];
  const what =
    part.status === "changed" ? "mismatched" : part.status === "added" ? words.added : words.onlyOnTarget;
  return [
    `<tr class="severity-${part.severity}">`,
    `<td>${badge(status, what)}</td>`,
    `<td>${escapeHtml(partLabel(part.part, object.type))}</td>`,
    `<td>${escapeHtml(part.name)}${part.parent ? ` <span class="muted">(${escapeHtml(part.parent)})</span>` : ""}</td>`,
    `<td>${details(part, comparison)}</td>`,
    `<td>${badge(part.severity, part.severity)}</td>`,
    "</tr>",
  ].join("");
}

/**
 * A changed part's properties, one per line, each side's value labelled, A's first; a part on one
 * side only, as that side describes it.
 */
function details(part: ComparedPart, comparison: Comparison): string {
  if (part.status !== "changed") return wholePart(part, comparison);
  const properties = part.properties ?? [];
  if (properties.length === 0) return escapeHtml(describePart(part));
  const items = properties.map((p) => `<li>${escapeHtml(compareProperty(p, comparison))}</li>`);
  return `<ul>${items.join("")}</ul>`;
}

function wholePart(part: ComparedPart, comparison: Comparison): string {
  const side = part.status === "added" ? comparison.from : comparison.to;
  const head = `<span class="muted">${escapeHtml(`on ${side}:`)}</span>`;
  const detail = part.detail;
  if (!detail) return `${head} ${escapeHtml(`${partLabel(part.part)} ${part.name}`)}`;
  const items = [
    ...Object.entries(detail.properties).map(([label, value]) => `${label}: ${formatPartValue(value)}`),
    ...(detail.sections ?? []).map(
      (section) =>
        `section ${JSON.stringify(section.name)}: ${section.fields.map((f) => JSON.stringify(f)).join(", ")}`,
    ),
  ];
  if (items.length === 0) return `${head} ${escapeHtml(part.name)}`;
  return `${head}<ul>${items.map((item) => `<li>${escapeHtml(item)}</li>`).join("")}</ul>`;
}

function objectSection(object: ComparedObject, comparison: Comparison, expand: boolean): string {
  const summary = `${badge(object.status, GROUP_TITLE[object.status])} ${escapeHtml(`${object.type} ${object.name}`)} <span class="muted">${escapeHtml(objectSummary(object, comparison))}</span>`;
  const body =
    object.parts.length === 0
      ? `<p class="muted">${object.status === "matched" ? "Every part matches." : `Only on ${escapeHtml(comparison.to)}: a promotion from ${escapeHtml(comparison.from)} leaves it alone, so its parts are not listed.`}</p>`
      : [
          "<table>",
          `<thead><tr><th>difference</th><th>part</th><th>name</th><th>${escapeHtml(`${comparison.from} → ${comparison.to}`)}</th><th>severity</th></tr></thead>`,
          "<tbody>",
          ...object.parts.map((part) => partRow(part, object, comparison)),
          "</tbody>",
          "</table>",
        ].join("\n");
  return `<details class="object" data-status="${object.status}"${expand ? " open" : ""}>\n<summary>${summary}</summary>\n${body}\n</details>`;
}

function summaryTable(comparison: Comparison): string {
  const { summary } = comparison;
  const rows: Array<[ComparisonStatus, number]> = [
    ["matched", summary.matched],
    ["mismatched", summary.mismatched],
    ["missingInTarget", summary.missingInTarget],
    ["missingInSource", summary.missingInSource],
  ];
  return [
    '<table id="summary">',
    "<thead><tr><th>applications and sub-forms</th><th>count</th></tr></thead>",
    "<tbody>",
    ...rows.map(
      ([status, count]) =>
        `<tr data-status="${status}"><td>${badge(status, GROUP_TITLE[status])}</td><td class="count">${count}</td></tr>`,
    ),
    `<tr><td>compared</td><td class="count">${summary.objects}</td></tr>`,
    `<tr data-status="critical"><td>${badge("critical", "critical differences")}</td><td class="count">${summary.parts.critical}</td></tr>`,
    "</tbody>",
    "</table>",
    `<p>Parts: ${escapeHtml(describeCompareCounts(summary.parts))}.</p>`,
  ].join("\n");
}

export interface HtmlReportOptions {
  /** Every section open: the page has no script, and no CSS can open every <details> at once. */
  expand?: boolean;
}

export function renderComparisonHtml(comparison: Comparison, options: HtmlReportOptions = {}): string {
  const expand = options.expand ?? false;
  const title = `egp compare: ${comparison.from} → ${comparison.to}`;
  const groups = (Object.keys(GROUP_TITLE) as ComparisonStatus[]).flatMap((status) => {
    const objects = comparison.objects.filter((o) => o.status === status);
    if (objects.length === 0) return [];
    return [
      `<section id="${status}">`,
      `<h2>${escapeHtml(GROUP_TITLE[status])} (${objects.length})</h2>`,
      ...objects.map((object) => objectSection(object, comparison, expand)),
      "</section>",
    ];
  });
  return htmlPage(title, STYLE, [
    `<p class="muted">Made ${escapeHtml(comparison.createdAt)}. A part on ${escapeHtml(comparison.from)} only is missing in target; on ${escapeHtml(comparison.to)} only, missing in source.</p>`,
    summaryTable(comparison),
    expand
      ? ""
      : `<p class="muted" id="expand-hint">Sections are folded; <code>egp compare --format html --expand</code> makes this report with every section open.</p>`,
    ...groups,
  ]);
}

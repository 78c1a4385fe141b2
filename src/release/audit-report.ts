import { escapeHtml } from "../plan/render/folds.ts";
import { htmlPage } from "../plan/render/html-page.ts";
import { printable } from "../plan/render/printable.ts";
import type { AuditRecord } from "./audit.ts";
import { type AuditChain, breakLine } from "./audit-chain.ts";

/*
 * `egp audit` as a person or a spreadsheet reads it. The HTML page is what an auditor is handed:
 * self-contained, no script, nothing loaded (html-page.ts), every value escaped.
 */

export type AuditFormat = "text" | "json" | "csv" | "html";

export interface AuditReport {
  /** Records after the filters. */
  records: readonly AuditRecord[];
  /** The whole chain's verdict (filters never hide a broken link). */
  chain: Pick<AuditChain, "broken" | "breaks" | "unverifiable">;
  /** The filters, in words (for the page's heading). */
  filters: string;
  /** The `apply-started` records of the whole chain that no result names: outcome unknown. */
  unfinished?: ReadonlySet<number>;
}

const changesOf = (r: AuditRecord) => r.changes.map((c) => `${c.action} ${c.kind} ${c.name}`).join("; ");
const releaseOf = (r: AuditRecord) =>
  !r.release
    ? ""
    : r.release.packages.length === 0
      ? r.release.name
      : `${r.release.name} (${r.release.packages.map((p) => `${p.name} ${p.sha256}`).join(", ")})`;
const instanceOf = (r: AuditRecord) => (r.instance ? `${r.instance.name} at ${r.instance.url}` : "");
const exceptionOf = (r: AuditRecord) =>
  r.exception ? `${r.exception.file} (${r.exception.reason}, until ${r.exception.until})` : "";

const OUTCOME_UNKNOWN = "outcome unknown";
const resultOf = (r: AuditRecord, report: AuditReport) =>
  report.unfinished?.has(r.sequence) ? OUTCOME_UNKNOWN : r.result;

const COLUMNS: ReadonlyArray<[string, (r: AuditRecord, report: AuditReport) => string]> = [
  ["sequence", (r) => String(r.sequence)],
  ["at", (r) => r.at],
  ["actor", (r) => r.actor],
  ["action", (r) => r.action],
  ["environment", (r) => r.environment ?? ""],
  ["instance", instanceOf],
  ["result", resultOf],
  ["release", releaseOf],
  ["plan sha256", (r) => r.planSha256 ?? ""],
  ["changes", changesOf],
  ["failures", (r) => r.failures.join("; ")],
  ["freeze exception", exceptionOf],
  ["reason", (r) => r.reason ?? ""],
  ["run", (r) => r.runUrl ?? ""],
  ["chain broken", (r) => r.chainBroken ?? ""],
  ["started", (r) => (r.started === undefined ? "" : `#${r.started}`)],
  ["actor source", (r) => r.actorSource ?? ""],
  ["approvers", (r) => (r.approvers ?? []).join("; ")],
];

const openBreaks = (chain: AuditReport["chain"]) =>
  chain.breaks.filter((b) => b.acknowledgedBy === undefined);

/** Records signed by keys this machine does not trust, in one line; undefined when there are none. */
export function unverifiableLine(chain: AuditReport["chain"]): string | undefined {
  const { count, why } = chain.unverifiable;
  if (count === 0) return undefined;
  return `${count} record${count === 1 ? "" : "s"} cannot be verified here (${why.join("; ")})`;
}

export function chainLine(chain: AuditReport["chain"]): string {
  if (chain.broken) {
    const more = openBreaks(chain).length - 1;
    return `The chain is broken at ${chain.broken.key}: ${chain.broken.why}${more > 0 ? ` (and ${more} more break${more === 1 ? "" : "s"}, listed above)` : ""}.`;
  }
  const unverifiable = unverifiableLine(chain);
  if (unverifiable) return `${unverifiable[0]?.toUpperCase()}${unverifiable.slice(1)}.`;
  const acknowledged = chain.breaks.length;
  return acknowledged > 0
    ? `The chain holds past ${acknowledged} acknowledged break${acknowledged === 1 ? "" : "s"}: every other record is sealed and names the one before it.`
    : "The chain holds: every record is sealed and names the one before it.";
}

/** Every break, one line each, an acknowledged one with the record that acknowledged it. */
export function breakLines(chain: AuditReport["chain"]): string[] {
  return chain.breaks.map((b) =>
    b.acknowledgedBy === undefined
      ? `Break: ${breakLine(b)}.`
      : `Acknowledged break (#${b.acknowledgedBy}): ${breakLine(b)}.`,
  );
}

function text(report: AuditReport): string {
  const lines = report.records.flatMap((r) => {
    const head = `#${r.sequence} ${r.at} ${r.actor} ${r.action}${r.environment ? ` ${r.environment}` : ""}: ${resultOf(r, report)}`;
    const details = COLUMNS.slice(5)
      .map(([name, value]) => [name, value(r, report)] as const)
      .filter(([, value]) => value !== "")
      .map(([name, value]) => `    ${name}: ${value}`);
    return [head, ...details];
  });
  // "No audit records" is said only of a trail that has none: records this machine can't check are counted instead.
  const none =
    report.records.length === 0 && report.chain.unverifiable.count === 0
      ? [`No audit records${report.filters ? ` (${report.filters})` : ""}.`]
      : [];
  return [...none, ...lines, ...breakLines(report.chain), chainLine(report.chain)].map(printable).join("\n");
}

/** A cell as RFC 4180 writes it, and never a formula when a spreadsheet opens the file. */
function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/**
 * A spreadsheet is read without the command's exit code: a chain that does not hold ends with a row
 * that says so (action `chain`, result `broken` or `unverifiable`, the breaks under failures).
 */
function verdictRows(chain: AuditReport["chain"]): string[][] {
  const row = (result: string, failures: string) =>
    COLUMNS.map(([name]) =>
      name === "action" ? "chain" : name === "result" ? result : name === "failures" ? failures : "",
    );
  if (chain.broken) return [row("broken", openBreaks(chain).map(breakLine).join("; "))];
  const unverifiable = unverifiableLine(chain);
  return unverifiable ? [row("unverifiable", unverifiable)] : [];
}

function csv(report: AuditReport): string {
  const rows = [
    COLUMNS.map(([name]) => name),
    ...report.records.map((r) => COLUMNS.map(([, value]) => value(r, report))),
    ...verdictRows(report.chain),
  ];
  return rows.map((row) => row.map(csvCell).join(",")).join("\r\n");
}

const STYLE = `
.broken { background: #ffebe9; border: 1px solid #cf222e; padding: 0.5rem 1rem; }
.holds { background: #dafbe1; border: 1px solid #1a7f37; padding: 0.5rem 1rem; }
td { font-size: 0.9em; word-break: break-word; }
td.at { white-space: nowrap; word-break: normal; }
`;

function html(report: AuditReport): string {
  const cell = (name: string, value: string) =>
    `<td${name === "at" ? ' class="at"' : ""}>${escapeHtml(printable(value))}</td>`;
  const rows = report.records.map(
    (r) =>
      `<tr data-sequence="${r.sequence}">${COLUMNS.map(([n, v]) => cell(n, v(r, report))).join("")}</tr>`,
  );
  const breaks = breakLines(report.chain).map((line) => `<li>${escapeHtml(printable(line))}</li>`);
  // htmlPage writes the page's one heading from its title.
  return htmlPage("egp audit", STYLE, [
    `<p class="muted">${escapeHtml(report.filters ? `Records ${report.filters}.` : "Every record.")} ${report.records.length} shown.</p>`,
    `<p class="${report.chain.broken || report.chain.unverifiable.count ? "broken" : "holds"}" id="chain">${escapeHtml(printable(chainLine(report.chain)))}</p>`,
    ...(breaks.length ? [`<ul id="breaks">${breaks.join("")}</ul>`] : []),
    "<table>",
    `<thead><tr>${COLUMNS.map(([name]) => `<th>${escapeHtml(name)}</th>`).join("")}</tr></thead>`,
    `<tbody>${rows.join("\n")}</tbody>`,
    "</table>",
  ]);
}

export function renderAudit(report: AuditReport, format: AuditFormat): string {
  if (format === "json")
    return JSON.stringify(
      {
        holds: !report.chain.broken && report.chain.unverifiable.count === 0,
        broken: report.chain.broken ?? null,
        breaks: report.chain.breaks,
        unverifiable: report.chain.unverifiable,
        records: report.records,
        outcomeUnknown: report.records
          .filter((r) => report.unfinished?.has(r.sequence))
          .map((r) => r.sequence),
      },
      null,
      2,
    );
  if (format === "csv") return csv(report);
  if (format === "html") return html(report);
  return text(report);
}

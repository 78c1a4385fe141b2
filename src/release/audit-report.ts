import { escapeHtml } from "../plan/render/folds.ts";
import { htmlPage } from "../plan/render/html-page.ts";
import { printable } from "../plan/render/printable.ts";
import type { AuditChain, AuditRecord } from "./audit.ts";

/*
 * `egp audit` as a person or a spreadsheet reads it. The HTML page is what an auditor is handed:
 * self-contained, no script, nothing loaded (html-page.ts), every value escaped.
 */

export type AuditFormat = "text" | "json" | "csv" | "html";

export interface AuditReport {
  /** Records after the filters. */
  records: readonly AuditRecord[];
  /** The whole chain's verdict (filters never hide a broken link). */
  chain: Pick<AuditChain, "broken">;
  /** The filters, in words (for the page's heading). */
  filters: string;
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

const COLUMNS: ReadonlyArray<[string, (r: AuditRecord) => string]> = [
  ["sequence", (r) => String(r.sequence)],
  ["at", (r) => r.at],
  ["actor", (r) => r.actor],
  ["action", (r) => r.action],
  ["environment", (r) => r.environment ?? ""],
  ["instance", instanceOf],
  ["result", (r) => r.result],
  ["release", releaseOf],
  ["plan sha256", (r) => r.planSha256 ?? ""],
  ["changes", changesOf],
  ["failures", (r) => r.failures.join("; ")],
  ["freeze exception", exceptionOf],
  ["reason", (r) => r.reason ?? ""],
  ["run", (r) => r.runUrl ?? ""],
  ["actor source", (r) => r.actorSource ?? ""],
  ["approvers", (r) => (r.approvers ?? []).join("; ")],
];

export function chainLine(chain: AuditReport["chain"]): string {
  return chain.broken
    ? `The chain is broken at ${chain.broken.key}: ${chain.broken.why}.`
    : "The chain holds: every record is sealed and names the one before it.";
}

function text(report: AuditReport): string {
  const lines = report.records.flatMap((r) => {
    const head = `#${r.sequence} ${r.at} ${r.actor} ${r.action}${r.environment ? ` ${r.environment}` : ""}: ${r.result}`;
    const details = COLUMNS.slice(5)
      .map(([name, value]) => [name, value(r)] as const)
      .filter(([, value]) => value !== "")
      .map(([name, value]) => `    ${name}: ${value}`);
    return [head, ...details];
  });
  const none =
    report.records.length === 0 ? [`No audit records${report.filters ? ` (${report.filters})` : ""}.`] : [];
  return [...none, ...lines, chainLine(report.chain)].map(printable).join("\n");
}

/** A cell as RFC 4180 writes it, and never a formula when a spreadsheet opens the file. */
function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function csv(report: AuditReport): string {
  const rows = [
    COLUMNS.map(([name]) => name),
    ...report.records.map((r) => COLUMNS.map(([, value]) => value(r))),
  ];
  return rows.map((row) => row.map(csvCell).join(",")).join("\r\n");
}

const STYLE = `
.broken { background: #ffebe9; border: 1px solid #cf222e; padding: 0.5rem 1rem; }
.holds { background: #dafbe1; border: 1px solid #1a7f37; padding: 0.5rem 1rem; }
td { font-size: 0.9em; word-break: break-word; }
`;

function html(report: AuditReport): string {
  const cell = (value: string) => `<td>${escapeHtml(printable(value))}</td>`;
  const rows = report.records.map(
    (r) => `<tr data-sequence="${r.sequence}">${COLUMNS.map(([, v]) => cell(v(r))).join("")}</tr>`,
  );
  return htmlPage("egp audit", STYLE, [
    "<h1>egp audit</h1>",
    `<p class="muted">${escapeHtml(report.filters ? `Records ${report.filters}.` : "Every record.")} ${report.records.length} shown.</p>`,
    `<p class="${report.chain.broken ? "broken" : "holds"}" id="chain">${escapeHtml(printable(chainLine(report.chain)))}</p>`,
    "<table>",
    `<thead><tr>${COLUMNS.map(([name]) => `<th>${escapeHtml(name)}</th>`).join("")}</tr></thead>`,
    `<tbody>${rows.join("\n")}</tbody>`,
    "</table>",
  ]);
}

export function renderAudit(report: AuditReport, format: AuditFormat): string {
  if (format === "json")
    return JSON.stringify(
      { holds: !report.chain.broken, broken: report.chain.broken ?? null, records: report.records },
      null,
      2,
    );
  if (format === "csv") return csv(report);
  if (format === "html") return html(report);
  return text(report);
}

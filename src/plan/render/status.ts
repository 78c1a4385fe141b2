import type { EnvironmentStatus, PendingApply, Runs, StatusReport } from "../status.ts";
import { code, escapeHtml } from "./folds.ts";
import { badge, htmlPage } from "./html-page.ts";
import { freezeEnd } from "./notices.ts";
import { printable } from "./printable.ts";

/*
 * `egp status` for people (a table on a terminal, a job summary in markdown, a page) and for
 * programs (JSON). Names come from the repository and the instances: printable on a terminal, in
 * code in markdown, escaped in HTML.
 */

type State = "matches" | "drifted" | "unreachable" | "login refused";

function stateOf(status: EnvironmentStatus): State {
  if (!status.reachable) return status.loginRefused ? "login refused" : "unreachable";
  return status.driftTotal > 0 ? "drifted" : "matches";
}

/** `3 (Package 1, User 2)`, or `0`. */
function driftText(status: EnvironmentStatus): string {
  if (!status.reachable) return "-";
  const kinds = Object.entries(status.drift).map(([kind, count]) => `${kind} ${count}`);
  return kinds.length === 0 ? "0" : `${status.driftTotal} (${kinds.join(", ")})`;
}

function wantsText(status: EnvironmentStatus): string {
  const { wants } = status;
  if (!wants) return "-";
  if (!("release" in wants)) return `packages from ${wants.packagesFrom}`;
  return `release ${wants.release}${status.reachable && status.rejected ? " (rejected)" : ""}${verificationText(status)}`;
}

/** `, verifying (soak until …)` or `, not verified (…)`: the wanted release's verification still pending or failed. */
function verificationText(status: EnvironmentStatus): string {
  const v = status.verification;
  if (!v) return "";
  return v.state === "soaking" ? `, verifying (soak until ${v.until})` : `, not verified (${v.reason})`;
}

/** `frozen until 2026-12-07 04:00 Europe/Berlin (03:00Z) (Weekend freeze)`. */
function frozenText(status: EnvironmentStatus): string | undefined {
  return status.freeze && `frozen until ${freezeEnd(status.freeze)} (${status.freeze.reason})`;
}

/**
 * What the row's cells do not say, one line each: why it can't be read, the rejected release, the
 * freeze in force.
 */
function whyTexts(status: EnvironmentStatus): string[] {
  const why = status.reachable ? status.rejected?.message : status.reason;
  return [why, frozenText(status)].filter((text): text is string => text !== undefined);
}

/** `release 2026-11-r1 (install 9c01d2e7f3a4, verified …)`, with `rolled back …` when it was. */
function runsText(runs: Runs | null | undefined): string {
  if (!runs) return "-";
  const what =
    runs.release !== undefined
      ? `release ${runs.release}`
      : `${JSON.stringify(runs.package)} from ${runs.from}`;
  if (runs.install === null) return `${what} (verified ${runs.verifiedAt}, no install needed)`;
  const when = runs.verifiedAt !== null ? `verified ${runs.verifiedAt}` : `installed ${runs.at}`;
  const back = runs.rolledBackAt !== null ? `, rolled back ${runs.rolledBackAt}` : "";
  return `${what} (install ${runs.install}, ${when})${back}`;
}

function pendingText(pending: EnvironmentStatus["pending"]): string {
  if (!pending) return "-";
  if ("unreadable" in pending) return pending.unreadable;
  const p: PendingApply = pending;
  return `plan ${p.plan}, ${p.done} of ${p.steps} steps done (started ${p.startedAt})`;
}

function versionText(status: EnvironmentStatus): string {
  return status.reachable ? status.version : "-";
}

const HEADINGS = ["environment", "status", "version", "drift", "wants", "runs", "pending apply"];

function cells(status: EnvironmentStatus): string[] {
  return [
    status.environment,
    stateOf(status),
    versionText(status),
    driftText(status),
    wantsText(status),
    runsText(status.runs),
    pendingText(status.pending),
  ];
}

function summaryLine(report: StatusReport): string {
  const { matching, drifted, unreadable } = report.summary;
  const count = report.environments.length;
  return `${count} environment${count === 1 ? "" : "s"}: ${matching} matching, ${drifted} drifted, ${unreadable} unreachable`;
}

/** A table; below it, for each environment that can't be read, why, on one line. */
export function renderStatusText(report: StatusReport): string {
  const rows = [HEADINGS, ...report.environments.map((s) => cells(s).map(printable))];
  const widths = HEADINGS.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? "").length)));
  const lines = rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
  const reasons = report.environments.flatMap((s) =>
    whyTexts(s).map((why) => `${printable(s.environment)}: ${printable(why)}`),
  );
  return `${[...lines, "", ...reasons, ...(reasons.length ? [""] : []), summaryLine(report)].join("\n")}\n`;
}

/** In a markdown table a `|` ends the cell, even inside code. */
function cell(text: string): string {
  return text.replace(/\|/g, "\\|");
}

export function renderStatusMarkdown(report: StatusReport): string {
  const row = (status: EnvironmentStatus) => {
    // The status word is egp's own; every other cell may hold a name, so it is kept in code.
    const shown = cells(status).map((text, i) => (i === 1 || text === "-" ? text : code(text)));
    const why = whyTexts(status).map(code).join("<br>");
    return `| ${[...shown, why].map(cell).join(" | ")} |`;
  };
  return `${[
    "## egp status",
    "",
    `${summaryLine(report)} (${report.createdAt}).`,
    "",
    `| ${[...HEADINGS, "why"].join(" | ")} |`,
    `|${HEADINGS.map(() => "---").join("|")}|---|`,
    ...report.environments.map(row),
  ].join("\n")}\n`;
}

export function renderStatusJson(report: StatusReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

const STYLE = `
.matches { background: #dafbe1; color: #116329; }
.drifted { background: #fff1c2; color: #6b4500; }
.unreachable { background: #cf222e; color: #fff; }
.frozen { background: #ddf4ff; color: #0550ae; }
tr.unreachable-row td { background: #fff5f5; }
td.rolled-back, td.rejected { color: #cf222e; }
`;

function htmlRow(status: EnvironmentStatus): string {
  const state = stateOf(status);
  const [env, , version, drift, wants, runs, pending] = cells(status).map((text) =>
    escapeHtml(printable(text)),
  );
  const why = whyTexts(status)
    .map((text) => escapeHtml(printable(text)))
    .join("<br>");
  return [
    `<tr data-env="${escapeHtml(status.environment)}" data-status="${state}"${status.reachable ? "" : ' class="unreachable-row"'}>`,
    `<td><code>${env}</code></td>`,
    `<td>${badge(status.reachable ? state : "unreachable", state)}${status.freeze ? ` ${badge("frozen", "frozen")}` : ""}</td>`,
    `<td>${version}</td>`,
    `<td class="drift">${drift}</td>`,
    `<td class="wants${status.reachable && status.rejected ? " rejected" : ""}">${wants}</td>`,
    `<td class="runs${status.runs?.rolledBackAt ? " rolled-back" : ""}">${runs}</td>`,
    `<td>${pending}</td>`,
    `<td class="why">${why}</td>`,
    "</tr>",
  ].join("");
}

export function renderStatusHtml(report: StatusReport): string {
  return htmlPage("egp status", STYLE, [
    `<p class="muted">Made ${escapeHtml(report.createdAt)}. ${escapeHtml(summaryLine(report))}.</p>`,
    '<table id="status">',
    `<thead><tr>${[...HEADINGS, "why"].map((h) => `<th>${escapeHtml(h)}</th>`).join("")}</tr></thead>`,
    "<tbody>",
    ...report.environments.map(htmlRow),
    "</tbody>",
    "</table>",
  ]);
}

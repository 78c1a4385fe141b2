import { printable } from "../plan/index.ts";
import type { Finding } from "./drift-findings.ts";

/*
 * Findings for people: grouped by object, each on one line with its fingerprint (what `egp drift
 * ack` takes), its severity, its part and what fixes it.
 */

/** A finding set as one run reports it: open, acknowledged (with their acknowledgement), unused acknowledgements. */
export interface DriftReport {
  environment: string;
  open: Finding[];
  acknowledged: AcknowledgedFinding[];
  unused: UnusedAcknowledgement[];
}

export interface AcknowledgedFinding extends Finding {
  acknowledgement: {
    file: string;
    reason: string;
    until: string;
    by: string;
    /** Why it holds on its fingerprint alone (a sensitive value hashed without the shared key). */
    note?: string;
  };
}

export interface UnusedAcknowledgement {
  file: string;
  fingerprint: string;
  /** Why it matched nothing open: no such finding, or it no longer matches (`acknowledged value changed`, `expired`). */
  why: string;
}

function byObject(findings: readonly Finding[]): Map<string, Finding[]> {
  const groups = new Map<string, Finding[]>();
  for (const finding of findings) {
    const group = groups.get(finding.label) ?? [];
    group.push(finding);
    groups.set(finding.label, group);
  }
  return groups;
}

function line(finding: Finding & { resurfaced?: string }): string {
  const again = finding.resurfaced ? ` (${finding.resurfaced})` : "";
  return `${finding.fingerprint}  ${finding.severity.padEnd(6)}  ${printable(finding.partLabel)}: ${finding.remedy}${again}`;
}

function groupLines(findings: readonly Finding[], indent: string, markdown: boolean): string[] {
  const out: string[] = [];
  for (const [label, group] of byObject(findings)) {
    const from = group[0]?.differsFrom ?? "";
    out.push(
      markdown
        ? `- **${printable(label)}** (${printable(from)})`
        : `${indent}${printable(label)} (${printable(from)})`,
    );
    for (const finding of group)
      out.push(markdown ? `  - \`${line(finding)}\`` : `${indent}  ${line(finding)}`);
  }
  return out;
}

function summaryLine(report: DriftReport): string {
  const open = report.open.length;
  const acknowledged = report.acknowledged.length ? `, ${report.acknowledged.length} acknowledged` : "";
  return `Findings on ${report.environment}: ${open} open${acknowledged}.`;
}

function ackLines(report: DriftReport, markdown: boolean): string[] {
  const out: string[] = [];
  if (report.acknowledged.length) {
    out.push(markdown ? "" : "", markdown ? "Acknowledged (not open):" : "Acknowledged (not open):");
    for (const finding of report.acknowledged) {
      const { file, until, reason, note } = finding.acknowledgement;
      const noted = note ? `; ${note}` : "";
      const text = `${line(finding)} [${file}, until ${until}: ${printable(reason)}${noted}]`;
      out.push(markdown ? `- \`${finding.label}\` ${text}` : `  ${printable(finding.label)}  ${text}`);
    }
  }
  if (report.unused.length) {
    out.push("", "Acknowledgements that matched no finding:");
    for (const unused of report.unused)
      out.push(`${markdown ? "- " : "  "}${unused.file}: ${unused.fingerprint} (${printable(unused.why)})`);
  }
  return out;
}

/** The findings as text, appended to drift's report of the plan. */
export function renderFindingsText(report: DriftReport): string {
  const out = ["", summaryLine(report), ...groupLines(report.open, "  ", false), ...ackLines(report, false)];
  return `${out.join("\n")}\n`;
}

/** Open findings a markdown report lists (a drift issue's body has a size limit); the JSON has them all. */
export const MARKDOWN_FINDINGS = 50;

/** The command that acknowledges a finding, with its placeholders for what only a person can say. */
export function ackCommand(finding: Finding): string {
  return `egp drift ack ${finding.fingerprint} --env ${finding.environment} --reason "<why it is left>" --until <YYYY-MM-DD>`;
}

/** The findings as markdown, appended to drift's markdown: at most MARKDOWN_FINDINGS open ones, each with its ack command. */
export function renderFindingsMarkdown(report: DriftReport): string {
  const shown = report.open.slice(0, MARKDOWN_FINDINGS);
  const more = report.open.length - shown.length;
  const commands = shown.length
    ? [
        "",
        "<details><summary>Acknowledge one (commit the file it writes in a pull request)</summary>",
        "",
        "```sh",
        ...shown.map(ackCommand),
        "```",
        "",
        "</details>",
      ]
    : [];
  const out = [
    "",
    `#### ${summaryLine(report)}`,
    "",
    ...groupLines(shown, "", true),
    ...(more > 0
      ? ["", `…and ${more} more: every finding is in the JSON report (\`egp drift --format json\`).`]
      : []),
    ...commands,
    ...ackLines(report, true),
  ];
  return `${out.join("\n")}\n`;
}

/** The findings as drift's JSON adds them to the plan: open, acknowledged and unused acknowledgements. */
export function findingsJson(report: DriftReport): {
  findings: Finding[];
  acknowledged: AcknowledgedFinding[];
  unusedAcknowledgements: UnusedAcknowledgement[];
} {
  return { findings: report.open, acknowledged: report.acknowledged, unusedAcknowledgements: report.unused };
}

import { describe, expect, it } from "vitest";
import type { AuditRecord } from "./audit.ts";
import { renderAudit } from "./audit-report.ts";

const record: AuditRecord = {
  sequence: 1,
  previous: null,
  action: "apply",
  at: "2026-12-01T10:00:00.000Z",
  actor: "alice",
  runUrl: null,
  environment: "prod",
  instance: null,
  planSha256: null,
  release: null,
  changes: [],
  result: "verified",
  failures: [],
  exception: null,
  reason: null,
};
const holds = { breaks: [], unverifiable: { count: 0, why: [] } };
const missing = { key: "audit/000000000002", why: "it is missing (the head, audit-head, names record 2)" };
const broken = { ...holds, broken: missing, breaks: [missing] };

describe("the audit report", () => {
  it("gives the HTML page one heading, and keeps each timestamp on one line", () => {
    const html = renderAudit({ records: [record], chain: holds, filters: "" }, "html");
    expect(html.match(/<h1>/g)).toHaveLength(1);
    expect(html).toMatch(/td\.at \{[^}]*white-space: nowrap/);
    expect(html).toContain('<td class="at">2026-12-01T10:00:00.000Z</td>');
  });

  it("ends the CSV export of a broken chain with a row saying where it broke", () => {
    const rows = renderAudit({ records: [record], chain: broken, filters: "" }, "csv").split("\r\n");
    expect(rows).toHaveLength(3);
    expect(rows.at(-1)).toBe(
      `,,,chain,,,broken,,,,"broken at audit/000000000002: it is missing (the head, audit-head, names record 2)",,,,,,,`,
    );
    const whole = renderAudit({ records: [record], chain: holds, filters: "" }, "csv").split("\r\n");
    expect(whole).toHaveLength(2);
  });

  it("lists every break in text, and an acknowledged one as such", () => {
    const acknowledged = { ...holds, breaks: [{ ...missing, acknowledgedBy: 3 }] };
    const text = renderAudit({ records: [record], chain: acknowledged, filters: "" }, "text");
    expect(text).toContain(`Acknowledged break (#3): broken at ${missing.key}: ${missing.why}.`);
    expect(text).toContain("The chain holds past 1 acknowledged break");
    const open = renderAudit({ records: [record], chain: broken, filters: "" }, "text");
    expect(open).toContain(`Break: broken at ${missing.key}: ${missing.why}.`);
    expect(open).toContain(`The chain is broken at ${missing.key}: ${missing.why}.`);
  });
});

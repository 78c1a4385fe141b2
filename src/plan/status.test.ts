import { describe, expect, it } from "vitest";
import type { Change, Plan } from "./model.ts";
import { renderStatusHtml, renderStatusMarkdown, renderStatusText } from "./render/status.ts";
import { driftByKind, type EnvironmentStatus, statusExitCode, statusReport } from "./status.ts";

function change(kind: string, key: string, parts: Partial<Change> = {}): Change {
  return {
    id: `${kind}/${key}`,
    kind: kind as Change["kind"],
    key,
    action: "update",
    fields: [{ field: "Title", before: "a", after: "b", verifiable: true }],
    notes: [],
    destructive: false,
    ...parts,
  };
}

const planOf = (changes: Change[]) => ({ changes }) as unknown as Plan;

const matching: EnvironmentStatus = {
  environment: "dev",
  reachable: true,
  version: "6.14.0",
  drift: {},
  driftTotal: 0,
  lastInstall: null,
  pending: null,
};
const drifted: EnvironmentStatus = { ...matching, environment: "prod", drift: { User: 2 }, driftTotal: 2 };
const down: EnvironmentStatus = {
  environment: "test",
  reachable: false,
  reason: "EGP_CONNECTION connection refused",
  lastInstall: null,
  pending: null,
};

describe("driftByKind", () => {
  it("counts the changes that are drift per kind, and leaves role-only updates out", () => {
    const roles = change("User", "cfo", {
      fields: [{ field: "Roles", after: ["Auditor"], verifiable: false }],
    });
    const plan = planOf([
      change("User", "a"),
      change("User", "b", { action: "create" }),
      roles,
      change("Package", "GRC Core", { action: "promote" as Change["action"] }),
    ]);
    expect(driftByKind(plan)).toEqual({ Package: 1, User: 2 });
    expect(Object.keys(driftByKind(plan))).toEqual(["Package", "User"]);
  });
});

describe("statusExitCode", () => {
  it("is 0 when all match, 2 with drift, and 1 when one can't be read, even with drift", () => {
    const at = "2026-11-26T00:00:00.000Z";
    expect(statusExitCode(statusReport([matching], at))).toBe(0);
    expect(statusExitCode(statusReport([matching, drifted], at))).toBe(2);
    expect(statusExitCode(statusReport([drifted, down, matching], at))).toBe(1);
    expect(statusReport([drifted, down, matching], at).environments.map((s) => s.environment)).toEqual([
      "dev",
      "prod",
      "test",
    ]);
  });
});

describe("names are data", () => {
  const hostile: EnvironmentStatus = {
    ...drifted,
    lastInstall: { package: "a|b`<script>\u001b[2J", from: "dev", at: "2026-11-20T10:00:00Z", done: true },
  };
  const report = statusReport([hostile, { ...down, reason: "refused <b>\nforged line" }], "now");

  it("escapes control characters on a terminal, keeping each row and reason on one line", () => {
    const text = renderStatusText(report);
    expect(text).not.toContain("\u001b");
    expect(text).toContain("a|b`<script>\\x1b[2J from dev");
    expect(text).toContain("test: refused <b>\\nforged line\n");
  });

  it("keeps names in code in markdown, with the table's pipes escaped", () => {
    const markdown = renderStatusMarkdown(report);
    expect(markdown).toContain("| ``a\\|b`<script>\\x1b[2J from dev, installed 2026-11-20T10:00:00Z`` |");
    expect(markdown).toContain("| `refused <b>\\nforged line` |");
  });

  it("escapes them in HTML", () => {
    const html = renderStatusHtml(report);
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<b>");
    expect(html).toContain("a|b`&lt;script&gt;\\x1b[2J from dev");
  });
});

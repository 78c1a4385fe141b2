import { describe, expect, it } from "vitest";
import type { Change, Plan } from "./model.ts";
import { renderStatusHtml, renderStatusMarkdown, renderStatusText } from "./render/status.ts";
import {
  driftByKind,
  type EnvironmentStatus,
  type InstallEntry,
  pipelineOrder,
  statusExitCode,
  statusReport,
  whatRuns,
} from "./status.ts";

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
    wants: { packagesFrom: "dev" },
    runs: {
      package: "a|b`<script>\u001b[2J",
      from: "dev",
      install: "0123456789ab",
      at: "2026-11-20T10:00:00Z",
      verifiedAt: null,
      rolledBackAt: null,
    },
  };
  const report = statusReport([hostile, { ...down, reason: "refused <b>\nforged line" }], "now");

  it("escapes control characters on a terminal, keeping each row and reason on one line", () => {
    const text = renderStatusText(report);
    expect(text).not.toContain("\u001b");
    expect(text).toContain(
      '"a|b`<script>\\u001b[2J" from dev (install 0123456789ab, installed 2026-11-20T10:00:00Z)',
    );
    expect(text).toContain("test: refused <b>\\nforged line\n");
  });

  it("keeps names in code in markdown, with the table's pipes escaped", () => {
    const markdown = renderStatusMarkdown(report);
    expect(markdown).toContain(
      '| ``"a\\|b`<script>\\u001b[2J" from dev (install 0123456789ab, installed 2026-11-20T10:00:00Z)`` |',
    );
    expect(markdown).toContain("| `refused <b>\\nforged line` |");
  });

  it("escapes them in HTML", () => {
    const html = renderStatusHtml(report);
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<b>");
    expect(html).toContain("&quot;a|b`&lt;script&gt;\\u001b[2J&quot; from dev");
  });
});

describe("the pipeline's order", () => {
  it("puts each environment after its packagesFrom and requiresVerifiedOn, ties by name", () => {
    const order = pipelineOrder([
      { name: "prod", upstream: ["test"] },
      { name: "dev", upstream: [] },
      { name: "test", upstream: ["dev"] },
      { name: "audit", upstream: [] },
      { name: "demo", upstream: ["dev"] },
    ]);
    expect(order).toEqual(["audit", "dev", "demo", "test", "prod"]);
  });

  it("shows every environment of a cycle, by name, once nothing else is ready, and ignores edges to environments not listed", () => {
    expect(
      pipelineOrder([
        { name: "b", upstream: ["a"] },
        { name: "a", upstream: ["b"] },
        { name: "c", upstream: ["elsewhere"] },
      ]),
    ).toEqual(["c", "a", "b"]);
  });

  it("orders the status report's rows", () => {
    const rows = [
      { ...matching, environment: "prod", upstream: ["test"] },
      { ...matching, environment: "test", upstream: ["dev"] },
      { ...matching, environment: "dev", upstream: [] },
    ];
    expect(statusReport(rows, "now").environments.map((s) => s.environment)).toEqual(["dev", "test", "prod"]);
    // prod comes after test, which is not shown: the whole pipeline's order keeps it after zdev.
    const shown = [
      { ...matching, environment: "prod", upstream: ["test"] },
      { ...matching, environment: "zdev", upstream: [] },
    ];
    const names = (report: ReturnType<typeof statusReport>) => report.environments.map((s) => s.environment);
    expect(names(statusReport(shown, "now"))).toEqual(["prod", "zdev"]);
    expect(names(statusReport(shown, "now", ["zdev", "test", "prod"]))).toEqual(["zdev", "prod"]);
  });
});

describe("whatRuns", () => {
  const install = (
    id: string,
    installedAt: string | null,
    parts: Partial<InstallEntry> = {},
  ): InstallEntry => ({
    id,
    release: "r1",
    package: "GRC Core",
    from: "dev",
    installedAt,
    rolledBackAt: null,
    ...parts,
  });

  it("is the newest install of a release verified at or after it, marked when it was rolled back", () => {
    const runs = whatRuns(
      [
        install("bbbbbbbbbbbb", "2026-11-20T12:00:00Z", { release: "r2" }),
        install("aaaaaaaaaaaa", "2026-11-20T10:00:00Z", { rolledBackAt: "2026-11-21T00:00:00Z" }),
      ],
      [{ release: "r1", verifiedAt: "2026-11-20T10:00:05Z" }],
    );
    // r2's install was never verified: the environment runs r1's, which was rolled back since.
    expect(runs).toEqual({
      release: "r1",
      package: "GRC Core",
      from: "dev",
      install: "aaaaaaaaaaaa",
      at: "2026-11-20T10:00:00Z",
      verifiedAt: "2026-11-20T10:00:05Z",
      rolledBackAt: "2026-11-21T00:00:00Z",
    });
  });

  it("counts a live promotion's install once seen done, and a release verified without an install", () => {
    const live = install("cccccccccccc", "2026-11-20T10:00:00Z", { release: undefined });
    expect(whatRuns([live, install("dddddddddddd", null)], [])).toMatchObject({ install: "cccccccccccc" });
    expect(whatRuns([live], [{ release: "r3", verifiedAt: "2026-11-22T00:00:00Z" }])).toEqual({
      release: "r3",
      install: null,
      at: "2026-11-22T00:00:00Z",
      verifiedAt: "2026-11-22T00:00:00Z",
      rolledBackAt: null,
    });
    expect(whatRuns([], [])).toBeNull();
  });
});

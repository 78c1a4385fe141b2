import { describe, expect, it } from "vitest";
import type { ApplyResult } from "../apply/executor.ts";
import type { Plan } from "../plan/model.ts";
import { renderAudit } from "./audit-report.ts";
import { rollbackEntry } from "./audit-trail.ts";
import { rollbackNotice } from "./rollback.ts";

/* What a rollback leaves behind: its audit record and its notice, naming the release it undid. */

const SHA = "a".repeat(64);
const run: ApplyResult = {
  done: ["s1"],
  reused: [],
  failed: [],
  skipped: [],
  notStarted: [],
  stopped: [],
  interrupted: false,
};
const plan = { id: "p1", environment: "prod", changes: [], steps: [] } as unknown as Plan;
const environment = {
  name: "prod",
  instance: "Default",
  endpoint: { kind: "http" as const, url: "https://prod.example" },
};
const outcome = (release: string | undefined, result: "complete" | "incomplete" = "complete") => ({
  result,
  run: result === "complete" ? run : { ...run, failed: [{ step: "s1", code: "EGP_X", error: "no" }] },
  rollback: { plan },
  release: {
    id: "0123456789ab",
    package: { name: "GRC Core", digest: SHA },
    ...(release ? { release } : {}),
  },
});

describe("a rollback's record and notice", () => {
  it("names the release of the install it undid with that install's package bytes", () => {
    const entry = rollbackEntry({ environment } as never, outcome("2026-12-r1"));
    expect(entry).toMatchObject({
      action: "rollback",
      environment: "prod",
      result: "verified",
      release: { name: "2026-12-r1", packages: [{ name: "GRC Core", sha256: SHA }] },
      reason: "install 0123456789ab",
    });
    const text = renderAudit(
      {
        records: [{ ...entry, sequence: 1, previous: null }],
        chain: { breaks: [], unverifiable: { count: 0, why: [] } },
        filters: "",
      },
      "text",
    );
    expect(text).toContain(`release: 2026-12-r1 (GRC Core ${SHA})`);
    expect(text).not.toContain("()");
  });

  it("has no release for a live promotion's install", () => {
    expect(rollbackEntry({ environment } as never, outcome(undefined)).release).toBeNull();
  });

  it("notifies rolled-back once every step ran, failed otherwise", () => {
    expect(
      rollbackNotice("prod", { ...outcome("2026-12-r1"), rollback: { plan, notes: [] } } as never),
    ).toMatchObject({
      event: "rolled-back",
      environment: "prod",
      release: "2026-12-r1",
    });
    expect(
      rollbackNotice("prod", { ...outcome(undefined, "incomplete"), rollback: { plan, notes: [] } } as never),
    ).toMatchObject({ event: "failed", summary: expect.stringContaining("steps failed: s1") });
  });
});

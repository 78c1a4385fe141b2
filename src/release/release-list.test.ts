import { describe, expect, it } from "vitest";
import type { ReleaseRecord } from "../apply/index.ts";
import { rollbackOf } from "./release-list.ts";

/* Where a verified release was rolled back, and to what, from an environment's install history. */

function install(
  id: string,
  release: string,
  startedAt: string,
  rollbacks: Array<{ plan: string; at: string }> = [],
): ReleaseRecord {
  return {
    formatVersion: 1,
    id,
    environment: "prod",
    sourceEnvironment: "dev",
    release,
    plan: "p",
    package: { name: "GRC Core", digest: "a".repeat(64) },
    snapshot: null,
    created: [],
    startedAt,
    installedAt: startedAt,
    rollbacks,
  };
}

describe("rollbackOf", () => {
  const r1 = install("000000000001", "2026-12-r1", "2026-12-01T10:00:00.000Z");
  const verification = { environment: "prod", verifiedAt: "2026-12-02T10:05:00.000Z" };

  it("names the release installed before the rolled-back install, and when", () => {
    const r2 = install("000000000002", "2026-12-r2", "2026-12-02T10:00:00.000Z", [
      { plan: "q", at: "2026-12-03T08:00:00.000Z" },
    ]);
    expect(rollbackOf([r2, r1], "2026-12-r2", verification)).toEqual({
      environment: "prod",
      at: "2026-12-03T08:00:00.000Z",
      to: "2026-12-r1",
    });
    expect(rollbackOf([r2], "2026-12-r2", verification)?.to).toBeNull();
  });

  it("is none when the install was never rolled back, or verified again after its rollback", () => {
    const kept = install("000000000002", "2026-12-r2", "2026-12-02T10:00:00.000Z");
    expect(rollbackOf([kept, r1], "2026-12-r2", verification)).toBeUndefined();
    const again = install("000000000003", "2026-12-r2", "2026-12-04T10:00:00.000Z");
    const back = install("000000000002", "2026-12-r2", "2026-12-02T10:00:00.000Z", [
      { plan: "q", at: "2026-12-03T08:00:00.000Z" },
    ]);
    const reverified = { environment: "prod", verifiedAt: "2026-12-04T10:05:00.000Z" };
    expect(rollbackOf([again, back, r1], "2026-12-r2", reverified)).toBeUndefined();
  });
});

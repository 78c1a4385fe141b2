import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  listReleases,
  markRolledBack,
  type ReleaseRecord,
  releasesDir,
  releaseToRollBack,
  writeRelease,
} from "./releases.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function stateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "egp-releases-"));
  dirs.push(dir);
  return dir;
}

function record(id: string, startedAt: string, snapshot = true): ReleaseRecord {
  return {
    formatVersion: 1,
    id,
    environment: "prod",
    sourceEnvironment: "dev",
    plan: "p".repeat(16),
    package: { name: "GRC Core", digest: "a".repeat(64) },
    snapshot: snapshot
      ? {
          digest: "b".repeat(64),
          takenAt: startedAt,
          objects: [{ guid: "g", type: "Application", name: "Controls", parts: {} }],
        }
      : null,
    created: [],
    startedAt,
    installedAt: null,
    rollbacks: [],
  };
}

describe("release records", () => {
  it("are listed newest first, and rollback takes the newest unless one is named", () => {
    const dir = stateDir();
    writeRelease(dir, record("111111111111", "2026-11-01T00:00:00.000Z"));
    writeRelease(dir, record("222222222222", "2026-11-03T00:00:00.000Z"));
    writeRelease(dir, record("333333333333", "2026-11-02T00:00:00.000Z"));
    expect(listReleases(dir, "prod").map((r) => r.id)).toEqual([
      "222222222222",
      "333333333333",
      "111111111111",
    ]);
    expect(releaseToRollBack(dir, "prod").id).toBe("222222222222");
    expect(releaseToRollBack(dir, "prod", "111111111111").id).toBe("111111111111");
  });

  it("refuse a rollback with a coded one-line error: none recorded, an unknown id, or no snapshot", () => {
    const dir = stateDir();
    expect(() => releaseToRollBack(dir, "prod")).toThrow(
      expect.objectContaining({
        code: "EGP_NO_RELEASE",
        message: expect.stringMatching(/^no release of prod to roll back/),
      }),
    );
    writeRelease(dir, record("111111111111", "2026-11-01T00:00:00.000Z", false));
    expect(() => releaseToRollBack(dir, "prod", "999999999999")).toThrow(
      "no release 999999999999 of prod (known: 111111111111); see 'egp releases --env prod'",
    );
    expect(() => releaseToRollBack(dir, "prod")).toThrow(
      expect.objectContaining({ code: "EGP_RELEASE_UNUSABLE" }),
    );
  });

  it("say which file is not a record, rather than skipping it", () => {
    const dir = stateDir();
    mkdirSync(releasesDir(dir, "prod"), { recursive: true });
    writeFileSync(join(releasesDir(dir, "prod"), "torn.json"), '{"formatVersion":1,"id":');
    expect(() => listReleases(dir, "prod")).toThrow(/torn\.json is not a release record \(not JSON\)/);
  });

  it("keep each rollback that installed the snapshot", () => {
    const dir = stateDir();
    writeRelease(dir, record("111111111111", "2026-11-01T00:00:00.000Z"));
    markRolledBack(dir, "prod", "111111111111", "q".repeat(16), "2026-11-05T00:00:00.000Z");
    expect(listReleases(dir, "prod")[0]?.rollbacks).toEqual([
      { plan: "q".repeat(16), at: "2026-11-05T00:00:00.000Z" },
    ]);
  });
});

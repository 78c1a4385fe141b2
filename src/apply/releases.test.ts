import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { markRolledBack, type ReleaseRecord, readRelease, releasesDir, writeRelease } from "./releases.ts";

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

describe("release records (the local copy in .egp/releases)", () => {
  it("say which file is not a record, rather than reading past it", () => {
    const dir = stateDir();
    mkdirSync(releasesDir(dir, "prod"), { recursive: true, mode: 0o700 });
    const file = join(releasesDir(dir, "prod"), "111111111111.json");
    writeFileSync(file, '{"formatVersion":1,"id":', { mode: 0o600 });
    expect(() => readRelease(dir, "prod", "111111111111")).toThrow(
      `${file} is not a release record (not JSON)`,
    );
  });

  it("keep each rollback that installed the snapshot", () => {
    const dir = stateDir();
    writeRelease(dir, record("111111111111", "2026-11-01T00:00:00.000Z"));
    markRolledBack(dir, "prod", "111111111111", "q".repeat(16), "2026-11-05T00:00:00.000Z");
    expect(readRelease(dir, "prod", "111111111111")?.rollbacks).toEqual([
      { plan: "q".repeat(16), at: "2026-11-05T00:00:00.000Z" },
    ]);
  });
});

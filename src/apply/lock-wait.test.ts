import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { LOCK_RETRY_POLICY } from "../client/retry.ts";
import type { TakeResult } from "../io/lock-file.ts";
import { acquireLock } from "./lock.ts";

// How often the lock changes hands under the taker: set per test.
const takes = vi.hoisted(() => ({ moved: 0, tries: 0 }));

vi.mock("../io/lock-file.ts", async (importOriginal) => {
  const real = await importOriginal<typeof import("../io/lock-file.ts")>();
  return {
    ...real,
    tryTakeLockFile: (): TakeResult => {
      takes.tries += 1;
      return takes.tries <= takes.moved ? { taken: false, moved: true } : { taken: true };
    },
  };
});

beforeEach(() => {
  takes.tries = 0;
});

describe("acquireLock, a lock that changes hands while it is taken", () => {
  it("tries again after the shared jittered backoff, the waits recorded instead of slept", () => {
    takes.moved = 3;
    const slept: number[] = [];
    const dir = mkdtempSync(join(tmpdir(), "egp-lock-wait-"));
    const lock = acquireLock(dir, "prod", "test", { sleep: (ms) => slept.push(ms), random: () => 0.5 });
    expect(lock.file).toBe(join(dir, "locks", "prod.lock"));
    expect(takes.tries).toBe(4);
    expect(slept).toEqual([1, 2, 4]);
  });

  it("gives up, as a LockedError, once the policy's tries are spent: the wait is bounded", () => {
    takes.moved = Number.POSITIVE_INFINITY;
    const slept: number[] = [];
    const dir = mkdtempSync(join(tmpdir(), "egp-lock-wait-"));
    expect(() =>
      acquireLock(dir, "prod", "test", { sleep: (ms) => slept.push(ms), random: () => 0.999 }),
    ).toThrow(/prod cannot be locked: .*prod\.lock keeps changing hands/);
    expect(takes.tries).toBe(LOCK_RETRY_POLICY.retries + 1);
    expect(slept).toHaveLength(LOCK_RETRY_POLICY.retries);
    expect(Math.max(...slept)).toBeLessThan(LOCK_RETRY_POLICY.maxDelayMs);
    expect(slept.reduce((sum, ms) => sum + ms, 0)).toBeLessThan(2_000);
  });
});

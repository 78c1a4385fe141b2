import { afterEach, describe, expect, it, vi } from "vitest";
import {
  finishFair,
  LoadGate,
  MIN_ROUNDS,
  median,
  orderOf,
  pairedRatios,
  roundsOf,
} from "../../bench/lib/rounds.ts";
import { finish } from "../../bench/lib/verdict.ts";

/*
 * The fair-bench rules that bench/transfer.ts follows: at least 6 interleaved rounds, the median of
 * per-round paired ratios, NO VERDICT above a one-minute load of 1.5, and the figures last with
 * the load closing them; and every bench's last line (lib/verdict.ts), which finishFair's builds on.
 */

const lines: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  lines.length = 0;
  process.exitCode = 0;
});
const capture = () =>
  vi.spyOn(console, "log").mockImplementation((line: unknown) => {
    lines.push(String(line));
  });

describe("fair rounds", () => {
  it("run at least 6 rounds, whatever is asked", () => {
    expect(MIN_ROUNDS).toBe(6);
    expect(roundsOf(4)).toBe(6);
    expect(roundsOf(undefined)).toBe(6);
    expect(roundsOf(9)).toBe(9);
  });

  it("alternate which side goes first", () => {
    expect([1, 2, 3, 4].map((round) => orderOf(round, "egp", "curl")[0])).toEqual([
      "egp",
      "curl",
      "egp",
      "curl",
    ]);
  });

  it("take the median of per-round ratios, not the ratio of medians", () => {
    const ours = [2, 10, 3];
    const theirs = [1, 10, 1];
    expect(pairedRatios(ours, theirs)).toEqual([2, 1, 3]);
    expect(median(pairedRatios(ours, theirs))).toBe(2);
    // The ratio of the medians would say 3 / 1 = 3.
    expect(median(ours) / median(theirs)).toBe(3);
    expect(median([1, 2, 3, 4])).toBe(2.5);
    expect(() => pairedRatios([1], [1, 2])).toThrow(/as many rounds/);
  });
});

describe("finishFair", () => {
  it("says NO VERDICT above a load of 1.5, then the figures, then the load, last", async () => {
    capture();
    await finishFair(
      60_000,
      new LoadGate(2.25),
      async () => ({ pass: false, reason: "slow" }),
      () => ["promotion / slower curl transfer, median of rounds: 1.40", "egp peak RSS MB: 140.0"],
    );
    expect(lines).toEqual([
      "NO VERDICT: load 2.25",
      "promotion / slower curl transfer, median of rounds: 1.40",
      "egp peak RSS MB: 140.0",
      "load: 2.25",
    ]);
    expect(process.exitCode).toBe(0);
  });

  it("gives PASS or FAIL at a load of 1.5 or less", async () => {
    capture();
    await finishFair(
      60_000,
      new LoadGate(1.5),
      async () => ({ pass: false, reason: "slow" }),
      () => [],
    );
    expect(lines).toEqual(["FAIL (slow)", "load: 1.50"]);
    expect(process.exitCode).toBe(1);
  });
});

describe("finish", () => {
  it("says PASS with exit code 0, or FAIL with the reason and exit code 1", async () => {
    capture();
    await finish(60_000, async () => ({ pass: true }));
    expect(lines).toEqual(["PASS"]);
    expect(process.exitCode).toBe(0);
    await finish(60_000, async () => ({ pass: false }));
    await finish(60_000, async () => ({ pass: false, reason: "slow" }));
    expect(lines.slice(1)).toEqual(["FAIL (target missed)", "FAIL (slow)"]);
    expect(process.exitCode).toBe(1);
  });

  it("says FAIL with the error's message when the bench throws", async () => {
    capture();
    await finish(60_000, async () => {
      throw new Error("emulator gone");
    });
    expect(lines).toEqual(["FAIL (emulator gone)"]);
    expect(process.exitCode).toBe(1);
  });
});

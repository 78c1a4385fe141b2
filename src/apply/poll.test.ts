import { describe, expect, it } from "vitest";
import { RetryBudget, withRetryBudget } from "../client/retry-budget.ts";
import { nextPauseMs, poll } from "./poll.ts";

/** A clock that moves only when the poll sleeps, and the pauses it slept. */
function fakeTime() {
  let now = 0;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms: number) => {
      slept.push(ms);
      now += ms;
    },
  };
}

const options = (time: ReturnType<typeof fakeTime>, limitMs: number) => ({
  what: "the install job",
  limitMs,
  limitName: "timeouts.job of prod",
  firstPauseMs: 250,
  sleep: time.sleep,
  now: time.now,
});

/** Reads that are done after `doneAtMs` of the fake clock. */
const doneAt = (time: ReturnType<typeof fakeTime>, doneAtMs: number) => async () =>
  time.now() >= doneAtMs ? "Completed" : undefined;

describe("poll: the pauses between reads of a job", () => {
  it("sees a short job at once: pauses double from the first one", async () => {
    const time = fakeTime();
    await expect(poll(options(time, 3_600_000), doneAt(time, 700))).resolves.toBe("Completed");
    expect(time.slept).toEqual([250, 500]);
  });

  it("reads a job of an hour less and less often, up to one read a minute", async () => {
    const time = fakeTime();
    let reads = 0;
    const done = doneAt(time, 3_500_000);
    await poll(options(time, 3_600_000), () => {
      reads += 1;
      return done();
    });
    expect(time.slept.slice(0, 8)).toEqual([250, 500, 1_000, 2_000, 4_000, 5_000, 5_000, 5_000]);
    // The pause each read waits, by when it starts.
    const pauses = time.slept.map((ms, i) => ({ at: time.slept.slice(0, i).reduce((a, b) => a + b, 0), ms }));
    const longest = (from: number, to: number) =>
      Math.max(...pauses.filter((p) => p.at >= from && p.at < to).map((p) => p.ms));
    expect(longest(0, 60_000)).toBe(5_000);
    expect(longest(120_000, 300_000)).toBe(15_000);
    expect(longest(400_000, 900_000)).toBe(30_000);
    expect(longest(1_000_000, 3_500_000)).toBe(60_000);
    // Five-second reads throughout would be 700.
    expect(reads).toBeLessThan(100);
  });

  it("caps a pause by the time the wait has left, and reads once more at the limit", async () => {
    expect(nextPauseMs(40_000, 1_000_000)).toBe(60_000);
    const time = fakeTime();
    await expect(poll(options(time, 2_000), doneAt(time, 4_000))).rejects.toThrow(
      "the install job: gave up after 2 s (timeouts.job of prod)",
    );
    expect(time.slept).toEqual([250, 500, 1_000, 250]);
  });

  it("fails with EGP_JOB_TIMEOUT", async () => {
    const time = fakeTime();
    await expect(poll(options(time, 1_000), doneAt(time, 4_000))).rejects.toMatchObject({
      code: "EGP_JOB_TIMEOUT",
    });
  });

  it("does not count its pauses as the retry budget's time: a fault late in a long job is still retried", async () => {
    const time = fakeTime();
    const budget = new RetryBudget({ tries: 16, ms: 300_000 }, 0);
    await withRetryBudget(budget, () => poll(options(time, 3_600_000), doneAt(time, 1_800_000)));
    expect(budget.until).toBe(300_000 + time.now());
    expect(budget.take(1_000, time.now())).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import { noticeGapMs } from "./waits.ts";

/** When the notices of a wait of `totalMs` come, as the Waits timer schedules them. */
function noticesOf(totalMs: number, intervalMs: number): number[] {
  const at: number[] = [];
  for (let next = intervalMs; next <= totalMs; next += noticeGapMs(next, intervalMs)) at.push(next);
  return at;
}

describe("wait notices", () => {
  it("come every interval for two minutes, so that a call's wait (at most 120 s) is reported as before", () => {
    expect(noticesOf(120_000, 10_000)).toEqual([
      10_000, 20_000, 30_000, 40_000, 50_000, 60_000, 70_000, 80_000, 90_000, 100_000, 110_000, 120_000,
    ]);
  });

  it("come every 30 s up to ten minutes and every minute after, so that a job of an hour is not 360 lines", () => {
    const notices = noticesOf(3_600_000, 10_000);
    const gaps = notices.slice(1).map((at, i) => at - (notices[i] ?? 0));
    expect(gaps.slice(11, 13)).toEqual([30_000, 30_000]);
    expect(gaps.at(-1)).toBe(60_000);
    expect(Math.max(...gaps)).toBe(60_000);
    expect(notices.length).toBeLessThan(80);
  });
});

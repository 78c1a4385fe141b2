import { describe, expect, it } from "vitest";
import { LONGEST_MS, main, soakMs } from "./soak-wait.ts";

describe("soak-wait", () => {
  it("reads egp's duration forms; a bare number is seconds", () => {
    expect([soakMs("90"), soakMs("30s"), soakMs("30m"), soakMs("1.5h"), soakMs("500ms")]).toEqual([
      90_000, 30_000, 1_800_000, 5_400_000, 500,
    ]);
  });

  it("refuses what is not a duration, and a soak longer than a runner's job may wait", () => {
    expect(() => soakMs("30 minutes")).toThrow('verify-after "30 minutes" is not a duration');
    expect(() => soakMs("")).toThrow("is not a duration");
    expect(() => soakMs("6h")).toThrow("longer than a runner's job may wait");
    expect(soakMs(`${LONGEST_MS}ms`)).toBe(LONGEST_MS);
  });

  it("waits the soak", async () => {
    const waits: number[] = [];
    await expect(main({ SOAK: "2m" }, async (ms) => void waits.push(ms))).resolves.toBe(0);
    expect(waits).toEqual([120_000]);
  });
});

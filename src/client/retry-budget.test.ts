import { describe, expect, it } from "vitest";
import { currentRetryBudget, RetryBudget, withRetryBudget } from "./retry-budget.ts";

describe("RetryBudget", () => {
  it("gives out its tries, then none", () => {
    const budget = new RetryBudget({ tries: 2, ms: 60_000 }, 0);
    expect([budget.take(0, 1), budget.take(0, 2), budget.take(0, 3)]).toEqual([true, true, false]);
    expect(budget.spent).toBe(2);
  });

  it("refuses a retry that would start after its time, without spending a try", () => {
    const budget = new RetryBudget({ tries: 5, ms: 10_000 }, 0);
    expect(budget.take(4_000, 7_000)).toBe(false);
    expect(budget.spent).toBe(0);
    expect(budget.take(3_000, 7_000)).toBe(true);
  });

  it("is seen by the calls made inside withRetryBudget, and only there", async () => {
    const budget = new RetryBudget({ tries: 1, ms: 1_000 });
    const seen = await withRetryBudget(budget, async () => {
      await Promise.resolve();
      return currentRetryBudget();
    });
    expect(seen).toBe(budget);
    expect(currentRetryBudget()).toBeUndefined();
  });
});

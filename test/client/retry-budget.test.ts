import { describe, expect, it } from "vitest";
import { RetryBudget, TransientError, withRetryBudget } from "../../src/index.ts";
import { recordingSleep, useClientEmulator } from "./helpers/client.ts";

/*
 * One budget of tries for a step and the calls it makes: the tries add up instead of multiplying
 * (8 step tries × 5 client tries would try a cut download 40 times).
 */

const ROUTE = "POST /core/system/applicationinfo/version";

describe("a retry budget shared by a step and its calls", () => {
  const { emulator, client } = useClientEmulator({ seed: "empty" });

  /** A step that retries up to 8 times when `retryStep()` allows, each try one client call. */
  async function step(call: () => Promise<unknown>, retryStep: () => boolean): Promise<void> {
    for (let attempt = 1; attempt <= 8; attempt++) {
      const failed = await call().then(
        () => false,
        (error: unknown) => {
          if (!(error instanceof TransientError)) throw error;
          return true;
        },
      );
      if (!failed || !retryStep()) return;
    }
  }

  it("without a budget the layers multiply: 8 step tries × 5 client tries", async () => {
    const c = client({ sleep: recordingSleep().sleep });
    await c.metadata.version();
    emulator().faults.script({ path: "applicationinfo/version", times: 100, action: { status: 503 } });
    try {
      await step(
        () => c.metadata.version(),
        () => true,
      );
      expect(c.stats().byRoute[ROUTE]).toBe(1 + 40);
    } finally {
      emulator().faults.clear();
    }
  });

  it("with one budget of 6 retries the step and its calls make 7 tries in all", async () => {
    const c = client({ sleep: recordingSleep().sleep });
    await c.metadata.version();
    emulator().faults.script({ path: "applicationinfo/version", times: 100, action: { status: 503 } });
    try {
      const budget = new RetryBudget({ tries: 6, ms: 60_000 });
      await withRetryBudget(budget, () =>
        step(
          () => c.metadata.version(),
          () => budget.take(),
        ),
      );
      expect(c.stats().byRoute[ROUTE]).toBe(1 + 7);
      expect(budget.spent).toBe(6);
    } finally {
      emulator().faults.clear();
    }
  });
});

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { CREATED_AT, desired, desiredUser, live } from "../../test/builders/plan.ts";
import type { PlatformClient } from "../client/client.ts";
import { TransientError } from "../client/errors.ts";
import { currentRetryBudget } from "../client/retry-budget.ts";
import { planChanges } from "../plan/index.ts";
import { executePlan } from "./executor.ts";
import { Journal } from "./journal.ts";
import type { OpRegistry } from "./ops/types.ts";

describe("executePlan: one retry budget per step", () => {
  it("the step's tries stop when its calls' retries have spent the budget (16 in all)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "egp-budget-"));
    const plan = planChanges(desired({ users: [desiredUser("a")] }), live(), { createdAt: CREATED_AT });
    let tries = 0;
    // Each try stands for a client call that retried four times (five HTTP tries) and failed.
    const ops = new Proxy({} as OpRegistry, {
      get: () => async () => {
        tries += 1;
        const budget = currentRetryBudget();
        for (let retry = 0; retry < 4; retry++) budget?.take();
        throw new TransientError({ code: "EGP_UNAVAILABLE", message: "503", status: 503 });
      },
    });
    const result = await executePlan({
      plan,
      desired: desired(),
      clients: new Map([["prod", {} as PlatformClient]]),
      journal: Journal.open(dir, plan),
      stateDir: dir,
      concurrency: 1,
      logger: pino({ level: "silent" }),
      ops,
      sleep: async () => undefined,
    });
    // 4 + 1 + 4 + 1 + 4 + 1 + 1 (the fourth try's calls find one retry left): 16; no fifth try.
    expect(tries).toBe(4);
    expect(result.failed).toEqual([{ step: "User/a#create", code: "EGP_UNAVAILABLE", error: "503" }]);
  });
});

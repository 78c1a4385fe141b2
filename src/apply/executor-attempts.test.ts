import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { CREATED_AT, desired, desiredUser, live } from "../../test/builders/plan.ts";
import type { PlatformClient } from "../client/client.ts";
import { RateLimitError } from "../client/errors.ts";
import { planChanges } from "../plan/index.ts";
import { executePlan } from "./executor.ts";
import { Journal } from "./journal.ts";
import type { OpRegistry } from "./ops/types.ts";

/** A one-user plan whose create fails `failures` times with a 429, then succeeds. */
async function runWithFailures(failures: number, random: () => number = () => 1, headers = {}) {
  const dir = mkdtempSync(join(tmpdir(), "egp-attempts-"));
  const plan = planChanges(desired({ users: [desiredUser("a")] }), live(), { createdAt: CREATED_AT });
  let tries = 0;
  const ops = new Proxy({} as OpRegistry, {
    get: () => async () => {
      tries += 1;
      if (tries <= failures)
        throw new RateLimitError({ code: "EGP_RATE_LIMITED", message: "429", status: 429, headers });
      return { id: 9 };
    },
  });
  const slept: number[] = [];
  const result = await executePlan({
    plan,
    desired: desired(),
    clients: new Map([["prod", {} as PlatformClient]]),
    journal: Journal.open(dir, plan),
    stateDir: dir,
    concurrency: 1,
    logger: pino({ level: "silent" }),
    ops,
    random,
    sleep: async (ms) => {
      slept.push(ms);
    },
  });
  return { result, tries, slept };
}

describe("executePlan: tries of a step that fails for a passing reason", () => {
  it("tries eight times, with backoff up to a 4 s cap, so that 20% faults do not fail a large apply", async () => {
    const { result, tries, slept } = await runWithFailures(7);
    expect(result.failed).toEqual([]);
    expect(result.done).toEqual(["User/a#create"]);
    expect(tries).toBe(8);
    expect(slept).toEqual([500, 1000, 2000, 4000, 4000, 4000, 4000]);
  });

  it("spreads the waits with full jitter below that ceiling, as the client's retries do", async () => {
    const { result, slept } = await runWithFailures(7, () => 0.5);
    expect(result.done).toEqual(["User/a#create"]);
    expect(slept).toEqual([250, 500, 1000, 2000, 2000, 2000, 2000]);
    const random = await runWithFailures(7, Math.random);
    expect(random.slept.every((ms, i) => ms >= 0 && ms < Math.min(500 * 2 ** i, 4000))).toBe(true);
  });

  it("waits as long as a Retry-After asks, as the client does", async () => {
    const { result, slept } = await runWithFailures(2, () => 0.5, { "retry-after": "3" });
    expect(result.done).toEqual(["User/a#create"]);
    expect(slept).toEqual([3000, 3000]);
  });

  it("gives up after the eighth", async () => {
    const { result, tries } = await runWithFailures(8);
    expect(tries).toBe(8);
    expect(result.failed).toEqual([{ step: "User/a#create", code: "EGP_RATE_LIMITED", error: "429" }]);
  });
});

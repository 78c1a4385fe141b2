import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.ts";
import { apply, httpConnections, type PlanOptions, planEnvironment } from "../../src/index.ts";
import { exampleOnEmulators } from "../helpers/cli.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";

/*
 * The example's promotion under faults, in-process through the library over HTTP (what `egp apply`
 * runs, without spawning it): transient statuses, resets, a 429 with Retry-After and a session
 * expiry on both instances, and no duplicate afterwards. The spawned CLI's own run under faults,
 * with a SIGKILL and a resume, is the chaos test's.
 */

const PASSWORD = "Password1!";
const startOne = emulatorsPerTest();
const connections = httpConnections();
let saved: string | undefined;

beforeAll(() => {
  saved = process.env.EGP_TEST_PASSWORD;
  process.env.EGP_TEST_PASSWORD = PASSWORD;
});
afterAll(async () => {
  if (saved === undefined) delete process.env.EGP_TEST_PASSWORD;
  else process.env.EGP_TEST_PASSWORD = saved;
});
afterEach(() => connections.close());

const usernames = (emulator: Emulator) => emulator.store.allUsers().map((u) => u.user.UserName.toLowerCase());

describe("the governed apply under faults", () => {
  it("converges through transient errors, a 429 with Retry-After, resets and a session expiry, with no duplicates", async () => {
    const faults = {
      seed: 11,
      rate: 0.2,
      statuses: [500, 502, 503],
      reset: 0.03,
      expireAt: 40,
      retryAfter: 0,
    };
    const jobs = { generateMs: 50, installMs: 100 };
    const dev = await startOne({ seed: "demo-dev", faults, jobs });
    const prod = await startOne({ seed: "demo-prod", faults: { ...faults, seed: 12 }, jobs });
    prod.faults.script({
      method: "PUT",
      path: "/core/system/user",
      times: 1,
      action: { status: 429, retryAfter: 1 },
    });
    const dir = await exampleOnEmulators({ dev: dev.url, prod: prod.url });
    const replan = (options: PlanOptions) =>
      planEnvironment({ dir, env: "local-prod", options, open: connections.open });

    const outcome = await apply({
      dir,
      env: "local-prod",
      stateDir: join(dir, ".egp"),
      open: connections.open,
    });
    expect(outcome).toMatchObject({ result: "complete", converged: true });
    expect(prod.faults.stats.injected).toBeGreaterThan(5);
    expect(prod.faults.stats.byKind["429"]).toBe(1);
    expect(prod.faults.stats.byKind.expire).toBe(1);

    const names = usernames(prod);
    expect(new Set(names).size).toBe(names.length);
    expect(prod.store.allSecurityParameters().filter((p) => p.Name === "Contractor Parameter")).toHaveLength(
      1,
    );
    dev.faults.clear();
    prod.faults.clear();
    const { plan } = await replan({});
    expect(plan.steps).toEqual([]);
  }, 60_000);
});

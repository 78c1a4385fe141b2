import { afterEach, describe, expect, it } from "vitest";
import { runChaosSeed } from "../../bench/lib/chaos-run.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { Raw } from "../helpers/raw.ts";

/*
 * The chaos run of bench/chaos.ts (DESIGN §5), small enough for CI: one seed, 30 users,
 * 3 security parameters and 1 package, under 20% transient faults, 429s with Retry-After,
 * connection resets and one session expiry, with a SIGKILL mid-apply and `apply --resume`, and
 * with a SIGINT mid-apply and a plain re-run that plans afresh.
 */

describe("chaos: faults, SIGKILL and a re-run", () => {
  it("converges with no duplicates and an empty final plan", async () => {
    const result = await runChaosSeed({ seed: 3, users: 30, parameters: 3, packages: 1 });

    expect(result.problems).toEqual([]);
    expect(result.killedAfterStep).not.toBeNull();
    expect(result.runs[0]?.signal).toBe("SIGKILL");
    expect(result.runs[1]?.code).toBe(0);
    expect(result.finalPlanEmpty).toBe(true);
    expect(result.duplicates).toEqual({ users: 0, parameters: 0, packages: 0, applications: 0 });
    expect(result.converged).toBe(true);
    // The faults really happened: transient statuses, 429s and the one forced session expiry.
    expect(result.injected.expire).toBe(1);
    expect(result.injected["429"] ?? 0).toBeGreaterThan(0);
    const statuses = ["500", "502", "503"].reduce((sum, s) => sum + (result.injected[s] ?? 0), 0);
    expect(statuses).toBeGreaterThan(0);
  }, 90_000);

  it("converges after a SIGINT halfway (exit 130) and a re-run that plans afresh", async () => {
    const result = await runChaosSeed({
      seed: 4,
      users: 20,
      parameters: 2,
      packages: 1,
      interrupt: "SIGINT",
    });

    expect(result.problems).toEqual([]);
    expect(result.killedAfterStep).not.toBeNull();
    expect(result.runs[0]?.code).toBe(130);
    expect(result.runs[1]?.code).toBe(0);
    expect(result.finalPlanEmpty).toBe(true);
    expect(result.duplicates).toEqual({ users: 0, parameters: 0, packages: 0, applications: 0 });
    expect(result.converged).toBe(true);
  }, 90_000);
});

describe("chaos: fault statistics", () => {
  let emulator: Emulator | undefined;
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  it("counts a reset after the work is done (the answer is lost, the change is made)", async () => {
    emulator = await startEmulator({ port: 0 });
    emulator.faults.script({
      method: "POST",
      path: "/core/system/user",
      action: { reset: true, after: true },
    });
    const raw = new Raw(emulator.url);
    const token = await raw.token();
    const create = raw.call("/core/system/user", {
      method: "POST",
      token,
      body: { User: { FirstName: "Reset", LastName: "After", UserName: "rafter" }, Password: "Password1!x" },
    });

    await expect(create).rejects.toThrow();
    expect(emulator.store.userByName("rafter")).toBeDefined();
    expect(emulator.faults.stats.byKind["reset-after"]).toBe(1);
    expect(emulator.faults.stats.injected).toBe(1);
  });
});

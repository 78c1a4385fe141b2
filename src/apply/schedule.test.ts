import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { CREATED_AT, desired, desiredUser, live } from "../../test/builders/plan.ts";
import type { PlatformClient } from "../client/client.ts";
import { ValidationError } from "../client/errors.ts";
import { planChanges } from "../plan/index.ts";
import { executePlan } from "./executor.ts";
import { Journal } from "./journal.ts";
import type { OpRegistry } from "./ops/types.ts";
import { Schedule } from "./schedule.ts";

const step = (id: string, ...dependsOn: string[]) => ({ id, dependsOn });
const ids = (steps: ReadonlyArray<{ id: string }>) => steps.map((s) => s.id);

describe("Schedule", () => {
  it("offers the steps without unfinished dependencies, in plan order, up to the limit", () => {
    const schedule = new Schedule([step("a"), step("b", "a"), step("c"), step("d")]);
    expect(ids(schedule.take(2))).toEqual(["a", "c"]);
    expect(ids(schedule.take(5))).toEqual(["d"]);
    expect(schedule.take(5)).toEqual([]);
    expect(schedule.size).toBe(1);
  });

  it("makes a step ready when its last dependency finishes, keeping plan order", () => {
    const schedule = new Schedule([step("a"), step("b"), step("c", "a", "b"), step("d", "b"), step("e")]);
    expect(ids(schedule.take(2))).toEqual(["a", "b"]);
    schedule.finish("b");
    expect(ids(schedule.take(1))).toEqual(["d"]);
    schedule.finish("a");
    expect(ids(schedule.take(5))).toEqual(["c", "e"]);
    expect(schedule.size).toBe(0);
  });

  it("counts steps finished before (a resumed run) as done, and does not offer them", () => {
    const schedule = new Schedule([step("a"), step("b", "a"), step("c", "gone")], ["a", "gone"]);
    expect(ids(schedule.take(5))).toEqual(["b", "c"]);
  });

  it("blocks everything downstream of a failure, directly or not, and nothing else", () => {
    const schedule = new Schedule([
      step("a"),
      step("b", "a"),
      step("c", "b"),
      step("d"),
      step("e", "d", "a"),
      step("f", "d"),
    ]);
    expect(ids(schedule.take(5))).toEqual(["a", "d"]);
    schedule.fail("a");
    expect(ids(schedule.takeBlocked())).toEqual(["b", "c", "e"]);
    expect(schedule.takeBlocked()).toEqual([]);
    schedule.finish("d");
    expect(ids(schedule.take(5))).toEqual(["f"]);
    expect(schedule.size).toBe(0);
  });

  it("counts blocked steps not yet taken as left, and drains them with the waiting ones", () => {
    const schedule = new Schedule([step("a"), step("b", "a"), step("c"), step("d", "c")]);
    expect(ids(schedule.take(2))).toEqual(["a", "c"]);
    schedule.fail("a");
    expect(schedule.size).toBe(2);
    expect(ids(schedule.drain())).toEqual(["b", "d"]);
    expect(schedule.size).toBe(0);
  });

  it("leaves a step whose dependency is not in the plan waiting, for the executor to skip", () => {
    const schedule = new Schedule([step("a", "elsewhere")]);
    expect(schedule.take(5)).toEqual([]);
    expect(ids(schedule.drain())).toEqual(["a"]);
  });

  it("reads each step's dependencies once, however many steps fail", () => {
    let reads = 0;
    const counted = (id: string, ...dependsOn: string[]) => ({
      id,
      get dependsOn() {
        reads += 1;
        return dependsOn;
      },
    });
    const steps = Array.from({ length: 400 }, (_, i) =>
      i % 2 === 0 ? counted(`s${i}`) : counted(`s${i}`, `s${i - 1}`),
    );
    const schedule = new Schedule(steps);
    for (let taken = schedule.take(1); taken.length > 0; taken = schedule.take(1)) {
      for (const s of taken) schedule.fail(s.id);
      schedule.takeBlocked();
    }
    expect(schedule.size).toBe(0);
    expect(reads).toBe(steps.length);
  });
});

describe("executePlan: the schedule", () => {
  it("does not look at every failed and skipped step again on each pass", async () => {
    const dir = mkdtempSync(join(tmpdir(), "egp-schedule-"));
    const users = Array.from({ length: 120 }, (_, i) => desiredUser(`u${String(i).padStart(3, "0")}`));
    const base = planChanges(desired({ users }), live(), { createdAt: CREATED_AT });
    let reads = 0;
    // Every second step depends on the one before it, and every first one fails.
    const steps = base.steps.map((s, i) => {
      const dependsOn = i % 2 === 1 ? [base.steps[i - 1]?.id ?? ""] : [];
      const copy = { ...s };
      Object.defineProperty(copy, "dependsOn", {
        enumerable: true,
        get: () => {
          reads += 1;
          return dependsOn;
        },
      });
      return copy;
    });
    const plan = { ...base, steps };
    const ops = new Proxy({} as OpRegistry, {
      get: () => async () => {
        throw new ValidationError({ code: "EGP_VALIDATION", message: "no", status: 400 });
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
    expect(result.failed).toHaveLength(60);
    expect(result.skipped).toHaveLength(60);
    // Once when the schedule is made, and a few times more for each step's context: linear, not
    // a pass over every step left each time one ends.
    expect(reads).toBeLessThan(steps.length * 4);
  });
});

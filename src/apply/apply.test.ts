import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { CREATED_AT, desired, desiredUser, live, liveUser } from "../../test/builders/plan.ts";
import type { PlatformClient } from "../client/client.ts";
import { TransientError, ValidationError } from "../client/errors.ts";
import { NO_PRUNING } from "../manifest/index.ts";
import { planChanges } from "../plan/index.ts";
import { executePlan } from "./executor.ts";
import { Journal } from "./journal.ts";
import { acquireLock, isStale, LockedError } from "./lock.ts";
import { BUILT_IN_OPS } from "./ops/index.ts";
import type { OpRegistry } from "./ops/types.ts";
import { generatePassword } from "./password.ts";

const state = () => mkdtempSync(join(tmpdir(), "egp-apply-"));
const quiet = pino({ level: "silent" });

function threeUserPlan() {
  return planChanges(desired({ users: [desiredUser("a"), desiredUser("b"), desiredUser("c")] }), live(), {
    createdAt: CREATED_AT,
  });
}

function registry(handler: OpRegistry[keyof OpRegistry]): OpRegistry {
  return new Proxy({} as OpRegistry, { get: () => handler });
}

const clients = new Map([["prod", {} as PlatformClient]]);

describe("generatePassword", () => {
  it("satisfies the parameter's length and character classes", () => {
    const parameter = {
      MinPasswordLength: 24,
      UppercaseCharsRequired: 3,
      LowercaseCharsRequired: 3,
      NumericCharsRequired: 4,
      SpecialCharsRequired: 5,
    };
    for (let i = 0; i < 50; i++) {
      const password = generatePassword(parameter);
      expect(password.length).toBeGreaterThanOrEqual(24);
      expect(password.match(/[A-Z]/g)?.length).toBeGreaterThanOrEqual(3);
      expect(password.match(/[a-z]/g)?.length).toBeGreaterThanOrEqual(3);
      expect(password.match(/\d/g)?.length).toBeGreaterThanOrEqual(4);
      expect(password.match(/[^A-Za-z0-9]/g)?.length).toBeGreaterThanOrEqual(5);
    }
    expect(generatePassword(parameter)).not.toBe(generatePassword(parameter));
  });
});

describe("Journal", () => {
  it("records the plan and each step, and finds an unfinished run", () => {
    const dir = state();
    const plan = threeUserPlan();
    const journal = Journal.open(dir, plan);
    journal.append({ type: "start", at: CREATED_AT, step: "User/a#create" });
    journal.append({ type: "done", at: CREATED_AT, step: "User/a#create", output: { id: 7 } });
    journal.append({ type: "start", at: CREATED_AT, step: "User/b#create" });
    appendFileSync(journal.file, '{"type":"done","step":"User/b#cr'); // torn by a crash
    const found = Journal.unfinished(dir, "prod");
    expect(found?.state.plan.id).toBe(plan.id);
    expect([...(found?.state.done ?? [])]).toEqual([["User/a#create", { id: 7 }]]);
    expect([...(found?.state.interrupted ?? [])]).toEqual(["User/b#create"]);
  });

  it("does not resume a completed run", () => {
    const dir = state();
    const journal = Journal.open(dir, threeUserPlan());
    journal.append({ type: "complete", at: CREATED_AT, ok: true });
    expect(Journal.unfinished(dir, "prod")).toBeUndefined();
  });
});

describe("acquireLock", () => {
  it("refuses a live holder and releases its own lock", () => {
    const dir = state();
    const lock = acquireLock(dir, "prod", "test");
    expect(() => acquireLock(dir, "prod", "second")).toThrow(LockedError);
    lock.release();
    acquireLock(dir, "prod", "third").release();
  });

  it("treats a dead pid on this host, or an old lock from another host, as stale", () => {
    const now = Date.now();
    expect(
      isStale(
        { pid: process.pid, host: hostname(), startedAt: new Date(now).toISOString(), command: "" },
        now,
        1000,
      ),
    ).toBe(false);
    expect(
      isStale(
        { pid: 2 ** 22 + 7, host: hostname(), startedAt: new Date(now).toISOString(), command: "" },
        now,
        1000,
      ),
    ).toBe(true);
    expect(
      isStale(
        { pid: 1, host: "elsewhere", startedAt: new Date(now - 5000).toISOString(), command: "" },
        now,
        1000,
      ),
    ).toBe(true);
    expect(
      isStale({ pid: 1, host: "elsewhere", startedAt: new Date(now).toISOString(), command: "" }, now, 1000),
    ).toBe(false);
  });

  it("takes over a stale lock and says whose it was", () => {
    const dir = state();
    const dead = { pid: 2 ** 22 + 9, host: hostname(), startedAt: CREATED_AT, command: "old" };
    acquireLock(dir, "prod", "first").release();
    writeFileSync(join(dir, "locks/prod.lock"), JSON.stringify(dead));
    const lock = acquireLock(dir, "prod", "new");
    expect(lock.tookOver).toEqual(dead);
    expect(JSON.parse(readFileSync(lock.file, "utf8")).command).toBe("new");
  });
});

describe("executePlan", () => {
  it("runs every step once, journals it, and reuses what a previous run finished", async () => {
    const dir = state();
    const plan = threeUserPlan();
    const calls: string[] = [];
    const ops = registry(async (context) => {
      calls.push(`${context.step.id}${context.resumed ? " (resumed)" : ""}`);
      return { id: calls.length };
    });
    const journal = Journal.open(dir, plan);
    journal.append({ type: "start", at: CREATED_AT, step: "User/a#create" });
    journal.append({ type: "done", at: CREATED_AT, step: "User/a#create", output: { id: 1 } });
    journal.append({ type: "start", at: CREATED_AT, step: "User/b#create" });
    const previous = Journal.unfinished(dir, "prod")?.state;
    const result = await executePlan({
      plan,
      desired: desired(),
      clients,
      journal,
      previous,
      stateDir: dir,
      concurrency: 2,
      logger: quiet,
      ops,
    });
    expect(result.reused).toEqual(["User/a#create"]);
    expect(calls.sort()).toEqual(["User/b#create (resumed)", "User/c#create"]);
    expect(Journal.unfinished(dir, "prod")).toBeUndefined();
  });

  it("tries a passing failure again as a possible duplicate, and skips what depends on a failed step", async () => {
    const dir = state();
    const plan = planChanges(
      desired({
        users: [desiredUser("a", { securityParameter: "New" })],
        securityParameters: [
          { kind: "SecurityParameter", name: "New", fields: {}, source: { file: "x", line: 1, column: 1 } },
        ],
      }),
      live(),
      { createdAt: CREATED_AT },
    );
    const tries: string[] = [];
    const ops = registry(async (context) => {
      tries.push(`${context.step.id}${context.resumed ? "*" : ""}`);
      if (tries.length === 1)
        throw new TransientError({ code: "EGP_UNAVAILABLE", message: "503", status: 503 });
      throw new ValidationError({ code: "EGP_VALIDATION", message: "bad parameter", status: 400 });
    });
    const slept: number[] = [];
    const result = await executePlan({
      plan,
      desired: desired(),
      clients,
      journal: Journal.open(dir, plan),
      stateDir: dir,
      concurrency: 4,
      logger: quiet,
      ops,
      random: () => 0.5,
      sleep: async (ms) => {
        slept.push(ms);
      },
    });
    expect(tries).toEqual(["SecurityParameter/New#create", "SecurityParameter/New#create*"]);
    expect(slept).toEqual([250]);
    expect(result.failed).toEqual([
      { step: "SecurityParameter/New#create", code: "EGP_VALIDATION", error: "bad parameter" },
    ]);
    expect(result.skipped).toEqual(["User/a#create"]);
  });

  it("refuses a delete step that neither --allow-delete nor the prune policy asked for, before any call", async () => {
    const dir = state();
    const plan = threeUserPlan();
    const forged = {
      ...plan,
      steps: plan.steps.map((step) =>
        step.id === "User/a#create" ? { ...step, op: "user.delete" as const } : step,
      ),
    };
    const calls: string[] = [];
    const client = new Proxy({} as PlatformClient, {
      get: (_target, family: string) =>
        new Proxy(
          {},
          {
            get: (_t, method: string) => async () => {
              calls.push(`${family}.${method}`);
              return [];
            },
          },
        ),
    });
    const result = await executePlan({
      plan: forged,
      desired: desired(),
      clients: new Map([["prod", client]]),
      journal: Journal.open(dir, forged),
      stateDir: dir,
      concurrency: 1,
      logger: quiet,
      ops: { ...BUILT_IN_OPS, "user.create": async () => ({ id: 1 }) },
    });
    expect(result.failed).toEqual([
      {
        step: "User/a#create",
        code: "EGP_DELETE_REFUSED",
        error:
          "refusing to delete user a: the plan was made without --allow-delete, and the prune policy does not delete users",
      },
    ]);
    expect(calls.filter((c) => c.startsWith("users."))).toEqual([]);
  });

  describe("the delete guard and deletes on purpose", () => {
    const gone = {
      kind: "User",
      ensure: "absent" as const,
      key: "dpatel",
      name: "dpatel",
      source: { file: "manifests/users.yaml", line: 2, column: 11 },
      path: "users[0].userName",
    };
    const people = live({
      users: [liveUser(1, "svc_gitops"), liveUser(2, "dpatel"), liveUser(3, "breakglass")],
    });

    async function run(plan: ReturnType<typeof planChanges>, state: ReturnType<typeof desired>) {
      const calls: string[] = [];
      const client = new Proxy({} as PlatformClient, {
        get: (_target, family: string) =>
          new Proxy(
            {},
            {
              get: (_t, method: string) => async (id?: number) => {
                calls.push(`${family}.${method}`);
                if (method === "get") return people.users.find((u) => u.user.Id === id)?.user;
                return method === "list" ? people.users.map((u) => u.user) : {};
              },
            },
          ),
      });
      const dir = mkdtempSync(join(tmpdir(), "egp-guard-"));
      const result = await executePlan({
        plan,
        desired: state,
        clients: new Map([["prod", client]]),
        journal: Journal.open(dir, plan),
        stateDir: dir,
        concurrency: 1,
        logger: quiet,
      });
      return { result, calls };
    }

    it("lets a delete that ensure: absent asked for through, with no --allow-delete and no policy", async () => {
      const state = desired({ absent: [gone] });
      const plan = planChanges(state, people, { createdAt: CREATED_AT });
      const { result, calls } = await run(plan, state);
      expect(result.failed).toEqual([]);
      expect(calls).toContain("users.remove");
    });

    it("refuses to prune a name the policy's exclude lists, even in a plan edited to do so", async () => {
      const prune = { ...NO_PRUNING, users: "delete" as const };
      const plan = planChanges(desired({ prune }), people, { createdAt: CREATED_AT });
      expect(plan.changes.map((c) => c.key)).toEqual(["dpatel", "breakglass"]);
      const state = desired({ prune: { ...prune, exclude: { ...prune.exclude, users: ["BREAK*"] } } });
      const { result, calls } = await run(plan, state);
      expect(result.failed).toEqual([
        {
          step: "User/breakglass#delete",
          code: "EGP_DELETE_REFUSED",
          error:
            "refusing to delete user breakglass: the prune policy's exclude names it, and no manifest says ensure: absent for it",
        },
      ]);
      expect(calls.filter((c) => c === "users.remove")).toHaveLength(1);
    });
  });
});

import { setTimeout as delay } from "node:timers/promises";
import type { Logger } from "pino";
import type { PlatformClient } from "../client/client.ts";
import { ConnectionError, OutcomeUnknownError, RateLimitError, TransientError } from "../client/errors.ts";
import { RetryBudget, withRetryBudget } from "../client/retry-budget.ts";
import type { DesiredState } from "../manifest/index.ts";
import { type Plan, type Step, unsealStep } from "../plan/index.ts";
import { ApplyErrorCode } from "./error-codes.ts";
import { ApplyError, StepError, type StepFailure } from "./errors.ts";
import type { Journal } from "./journal.ts";
import { OPS } from "./ops/index.ts";
import type { OpContext, OpRegistry } from "./ops/types.ts";
import type { Carried } from "./resume.ts";

/*
 * Runs a plan's steps in dependency order, several at a time. A step whose dependency failed is
 * skipped; independent steps go on. Each step is journaled as it starts and ends. A step that fails
 * for a passing reason is tried again (a create that may have happened is looked up first).
 */

export type ApplyEvent =
  | { type: "start" | "done" | "reused" | "skipped" | "stopped"; step: Step; ms?: number }
  | { type: "failed"; step: Step; error: StepFailure; ms: number }
  | { type: "retry"; step: Step; error: StepFailure; attempt: number }
  | { type: "progress"; step: Step; message: string; bytes?: number; total?: number };

export interface ApplyResult {
  done: string[];
  /** Steps a previous, interrupted run had finished. */
  reused: string[];
  failed: Array<{ step: string; code: string; error: string }>;
  skipped: string[];
  /** Steps never started because the run was interrupted. */
  notStarted: string[];
  /** Steps stopped between tries by the interrupt: their outcome is checked when the plan is resumed. */
  stopped: string[];
  /** True when the signal stopped the run: its journal stays open, to be resumed. */
  interrupted: boolean;
}

export interface ExecuteOptions {
  plan: Plan;
  desired: DesiredState;
  /** A client per environment the plan's steps talk to. */
  clients: ReadonlyMap<string, PlatformClient>;
  journal: Journal;
  /**
   * What an interrupted run recorded: of the same plan, or carried over from a superseded plan
   * (`carryOver`), in which case its reused outputs are written to this plan's journal too.
   */
  previous?: Carried;
  /** Aborted on an interrupt: no step starts after it; steps in flight finish. */
  signal?: AbortSignal;
  stateDir: string;
  concurrency: number;
  logger: Logger;
  onEvent?: (event: ApplyEvent) => void;
  sleep?: (ms: number) => Promise<void>;
  /** Replace the waits of every step; by default a step waits as its environment's file says. */
  timeouts?: Partial<OpContext["timeouts"]>;
  /** Tries of a step that fails for a passing reason (default 8). */
  attempts?: number;
  ops?: OpRegistry;
}

/** The waits of a step on an environment the desired state does not describe (a library caller's). */
const UNDESCRIBED_WAITS = { jobMs: 3_600_000, verifyMs: 3_600_000 } as const;

export function isPassing(error: unknown): boolean {
  return (
    error instanceof TransientError ||
    error instanceof ConnectionError ||
    error instanceof RateLimitError ||
    error instanceof OutcomeUnknownError
  );
}

/** Resolves when the signal aborts (never without one), so that the scheduler wakes up at once. */
function aborted(signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return new Promise(() => undefined);
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

export async function executePlan(options: ExecuteOptions): Promise<ApplyResult> {
  const { plan, journal } = options;
  const ops = options.ops ?? OPS;
  const sleep = options.sleep ?? ((ms: number) => delay(ms).then(() => undefined));
  // A step waits as the instance it talks to needs: the plan's own environment, or the source.
  const environments = [options.desired.environment, options.desired.packagesFrom];
  const timeoutsOf = (environment: string): OpContext["timeouts"] => ({
    ...UNDESCRIBED_WAITS,
    ...environments.find((config) => config?.name === environment)?.waits,
    pollMs: 250,
    ...options.timeouts,
  });
  const emit = options.onEvent ?? (() => undefined);
  // Eight: at 20% transient faults, five tries left a step of a 500-user apply failing in about one
  // run in four (0.22^5 per step); eight make that about one run in 350 (DESIGN §5).
  const attempts = options.attempts ?? 8;
  const outputs = new Map<string, Record<string, unknown>>(options.previous?.done ?? []);
  const interrupted = new Set(options.previous?.interrupted ?? []);
  const origins = new Map(options.previous?.origins ?? []);
  const result: ApplyResult = {
    done: [],
    reused: [],
    failed: [],
    skipped: [],
    notStarted: [],
    stopped: [],
    interrupted: false,
  };
  const changes = new Map(plan.changes.map((change) => [change.id, change]));
  const stepsById = new Map(plan.steps.map((step) => [step.id, step]));
  const stopping = () => options.signal?.aborted === true;
  const sharedReads = new Map<string, Promise<unknown>>();

  const clientFor = (step: Step) => {
    const client = options.clients.get(step.environment);
    if (!client)
      throw new ApplyError(
        ApplyErrorCode.NoConnection,
        `no connection to ${step.environment} for ${step.id}`,
      );
    return client;
  };

  const contextFor = (step: Step, resumed: boolean): OpContext => {
    const client = clientFor(step);
    return {
      step: unsealStep(step, plan.sensitive),
      planId: origins.get(step.id) ?? plan.id,
      client,
      desired: options.desired,
      clientOfStep: (id) => {
        const other = stepsById.get(id);
        return other ? options.clients.get(other.environment) : undefined;
      },
      outputOf: (id) => outputs.get(id),
      allowDelete: plan.options.allowDelete,
      resumed,
      stateDir: options.stateDir,
      logger: options.logger,
      progress: (message, bytes, total) => emit({ type: "progress", step, message, bytes, total }),
      sleep,
      shared: <T>(name: string, read: () => Promise<T>, refresh = false) => {
        const key = `${step.environment}\u0000${name}`;
        let cached = sharedReads.get(key) as Promise<T> | undefined;
        if (!cached || refresh) {
          cached = read();
          sharedReads.set(key, cached);
          cached.catch(() => {
            if (sharedReads.get(key) === cached) sharedReads.delete(key);
          });
        }
        return cached;
      },
      timeouts: timeoutsOf(step.environment),
    };
  };

  const handlerOf = (step: Step) => {
    const handler = ops[step.op];
    if (!handler)
      throw new ApplyError(ApplyErrorCode.NoHandler, `${step.id}: no handler is registered for ${step.op}`);
    return handler;
  };
  // Refused before any step runs: a plan whose ops can't all be run is not started.
  const unhandled = [...new Set(plan.steps.map((step) => step.op).filter((op) => !ops[op]))];
  if (unhandled.length > 0)
    throw new ApplyError(
      ApplyErrorCode.NoHandler,
      `no handler is registered for ${unhandled.join(", ")}: this egp can't apply the plan`,
    );

  const runStep = async (step: Step): Promise<void> => {
    const started = Date.now();
    await journal.record({ type: "start", at: new Date().toISOString(), step: step.id });
    emit({ type: "start", step });
    let resumed = interrupted.has(step.id);
    // The step's retries and its calls' retries draw from one budget: they add up, never multiply.
    const budget = new RetryBudget({ tries: 16, ms: 300_000 });
    for (let attempt = 1; ; attempt++) {
      try {
        const output = await withRetryBudget(budget, () => handlerOf(step)(contextFor(step, resumed)));
        // On disk before a dependent can start.
        await journal.record({ type: "done", at: new Date().toISOString(), step: step.id, output });
        outputs.set(step.id, output);
        result.done.push(step.id);
        emit({ type: "done", step, ms: Date.now() - started });
        return;
      } catch (error) {
        const failure = new StepError(step, changes.get(step.change), error).toJSON();
        const pause = Math.min(500 * 2 ** (attempt - 1), 4_000);
        if (attempt < attempts && isPassing(error) && stopping()) {
          // Left without an end in the journal: a resumed run checks whether it happened.
          result.stopped.push(step.id);
          emit({ type: "stopped", step });
          return;
        }
        if (attempt < attempts && isPassing(error) && budget.take(pause)) {
          emit({ type: "retry", step, error: failure, attempt });
          // The failed try may have done its work: the next one checks before it writes.
          resumed = true;
          await sleep(pause);
          continue;
        }
        await journal.record({ type: "failed", at: new Date().toISOString(), step: step.id, error: failure });
        result.failed.push({ step: step.id, code: failure.code, error: failure.message });
        emit({ type: "failed", step, error: failure, ms: Date.now() - started });
        return;
      }
    }
  };

  const pending = new Map(plan.steps.map((step) => [step.id, step]));
  const carried = options.previous !== undefined && options.previous.plan.id !== plan.id;
  for (const step of plan.steps) {
    if (carried && interrupted.has(step.id)) {
      // Kept in this plan's journal, so that an interrupt of this run still knows to check it.
      const origin = origins.get(step.id);
      await journal.record({ type: "start", at: new Date().toISOString(), step: step.id, origin });
    }
    const output = outputs.get(step.id);
    if (!output) continue;
    if (carried) {
      const origin = origins.get(step.id);
      await journal.record({ type: "done", at: new Date().toISOString(), step: step.id, output, origin });
    }
    pending.delete(step.id);
    result.reused.push(step.id);
    emit({ type: "reused", step });
  }
  const finished = (id: string) => outputs.has(id);
  const blocked = (step: Step) =>
    step.dependsOn.some((id) => result.failed.some((f) => f.step === id) || result.skipped.includes(id));
  const running = new Map<string, Promise<void>>();
  const interruptReceived = aborted(options.signal);

  while (pending.size > 0 || running.size > 0) {
    if (stopping()) {
      for (const id of pending.keys()) result.notStarted.push(id);
      pending.clear();
      if (running.size === 0) break;
      await Promise.race(running.values());
      continue;
    }
    for (const step of [...pending.values()]) {
      if (blocked(step)) {
        pending.delete(step.id);
        result.skipped.push(step.id);
        emit({ type: "skipped", step });
      }
    }
    for (const step of [...pending.values()]) {
      if (running.size >= options.concurrency) break;
      if (!step.dependsOn.every(finished)) continue;
      pending.delete(step.id);
      running.set(
        step.id,
        runStep(step).finally(() => running.delete(step.id)),
      );
    }
    if (running.size === 0) {
      // Nothing runs and nothing can start: what is left waits on steps that will never finish.
      for (const step of pending.values()) {
        result.skipped.push(step.id);
        emit({ type: "skipped", step });
      }
      break;
    }
    await Promise.race([...running.values(), interruptReceived]);
  }
  if (result.notStarted.length > 0 || result.stopped.length > 0) {
    // No `complete` entry: the journal stays open for `apply --resume`.
    result.interrupted = true;
    await journal.flush();
    return result;
  }
  journal.append({
    type: "complete",
    at: new Date().toISOString(),
    ok: result.failed.length === 0 && result.skipped.length === 0,
  });
  await journal.flush();
  return result;
}

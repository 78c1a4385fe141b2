import { setTimeout as delay } from "node:timers/promises";
import type { Logger } from "pino";
import type { PlatformClient } from "../client/client.ts";
import { STEP_RETRY_POLICY } from "../client/retry.ts";
import type { DesiredState } from "../manifest/index.ts";
import { type Plan, type Step, unsealStep } from "../plan/index.ts";
import { type SharedReads, sharedReads } from "../state/index.ts";
import type { ReleaseStore } from "../store/index.ts";
import { ApplyError, StepError, type StepFailure } from "./errors.ts";
import type { Journal } from "./journal.ts";
import { BUILT_IN_OPS } from "./ops/index.ts";
import type { OpContext, OpHandler, OpRegistry } from "./ops/types.ts";
import type { Carried } from "./resume.ts";
import { runStep, type StepOutcome } from "./run-step.ts";
import { Schedule } from "./schedule.ts";

export { isPassing } from "../client/retry.ts";

/*
 * Runs a plan's steps in dependency order, several at a time. A step whose dependency failed is
 * skipped; independent steps go on. Each step is journaled as it starts and ends (run-step.ts); which
 * step may start is the schedule's (schedule.ts).
 */

/** A verify step's verdict on an install (stable-reads.ts): how it converged, or that it did not. */
export interface StepVerdict {
  verdict: string;
  passes: number;
}

export type ApplyEvent =
  | { type: "done"; step: Step; ms?: number; verdict?: StepVerdict }
  | { type: "start" | "reused" | "skipped" | "stopped"; step: Step; ms?: number }
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
  /** The verdicts of the steps that verified an install, by step id (done, reused or diverged). */
  verdicts?: Array<StepVerdict & { step: string }>;
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
  /** The release store: install history, snapshots, verifications (see ops/package.ts). */
  store?: ReleaseStore;
  /** The run's reads of its instances' metadata (`OpContext.reads`); none by default. */
  reads?: SharedReads;
  concurrency: number;
  logger: Logger;
  onEvent?: (event: ApplyEvent) => void;
  sleep?: (ms: number) => Promise<void>;
  /** The jitter of the waits between a step's tries (tests pin it). */
  random?: () => number;
  /** Replace the waits of every step; by default a step waits as its environment's file says. */
  timeouts?: Partial<OpContext["timeouts"]>;
  /** Tries of a step that fails for a passing reason (default 8). */
  attempts?: number;
  /** The handlers of the kinds' ops (a kinds value's `ops`); egp's own by default. */
  ops?: OpRegistry;
}

/** The waits of a step on an environment the desired state does not describe (a library caller's). */
const UNDESCRIBED_WAITS = { jobMs: 3_600_000, verifyMs: 3_600_000 } as const;

/** Resolves when the signal aborts (never without one), so that the scheduler wakes up at once. */
function aborted(signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return new Promise(() => undefined);
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

export async function executePlan(options: ExecuteOptions): Promise<ApplyResult> {
  const { plan, journal } = options;
  const ops: OpRegistry = options.ops ?? BUILT_IN_OPS;
  refuseUnhandled(plan, ops);
  const sleep = options.sleep ?? ((ms: number) => delay(ms).then(() => undefined));
  const emit = options.onEvent ?? (() => undefined);
  const policy =
    options.attempts === undefined
      ? STEP_RETRY_POLICY
      : { ...STEP_RETRY_POLICY, retries: options.attempts - 1 };
  const outputs = new Map<string, Record<string, unknown>>(options.previous?.done ?? []);
  const interrupted = new Set(options.previous?.interrupted ?? []);
  const result: ApplyResult = {
    done: [],
    reused: [],
    failed: [],
    skipped: [],
    notStarted: [],
    stopped: [],
    interrupted: false,
    verdicts: [],
  };
  const verdictOf = (output: Record<string, unknown> | undefined): StepVerdict | undefined =>
    typeof output?.verdict === "string" && typeof output.passes === "number"
      ? { verdict: output.verdict, passes: output.passes }
      : undefined;
  const changes = new Map(plan.changes.map((change) => [change.id, change]));
  const stopping = () => options.signal?.aborted === true;
  const contextFor = contextFactory(options, outputs, sleep);

  for (const step of await carryOver(options, outputs)) {
    result.reused.push(step.id);
    const verdict = verdictOf(outputs.get(step.id));
    if (verdict) result.verdicts?.push({ step: step.id, ...verdict });
    emit({ type: "reused", step });
  }
  const schedule = new Schedule(plan.steps, outputs.keys());
  const skip = (steps: Step[]) => {
    for (const step of steps) {
      result.skipped.push(step.id);
      emit({ type: "skipped", step });
    }
  };
  const settle = (step: Step, outcome: StepOutcome) => {
    if (outcome.kind === "done") {
      outputs.set(step.id, outcome.output);
      result.done.push(step.id);
      schedule.finish(step.id);
      const verdict = verdictOf(outcome.output);
      if (verdict) result.verdicts?.push({ step: step.id, ...verdict });
      emit({ type: "done", step, ms: outcome.ms, ...(verdict ? { verdict } : {}) });
    } else if (outcome.kind === "failed") {
      const { failure } = outcome;
      result.failed.push({ step: step.id, code: failure.code, error: failure.message });
      if (failure.code === "EGP_INSTALL_DIVERGED")
        result.verdicts?.push({ step: step.id, verdict: "diverged", passes: failure.passes ?? 1 });
      schedule.fail(step.id);
      emit({ type: "failed", step, error: failure, ms: outcome.ms });
    } else {
      result.stopped.push(step.id);
      emit({ type: "stopped", step });
    }
  };
  const start = async (step: Step) => {
    const outcome = await runStep(step, {
      journal,
      handler: ops[step.op] as OpHandler,
      context: (resumed) => contextFor(step, resumed),
      resumed: interrupted.has(step.id),
      onStart: () => emit({ type: "start", step }),
      failureOf: (error) => new StepError(step, changes.get(step.change), error).toJSON(),
      policy,
      stopping,
      onRetry: (error, attempt) => emit({ type: "retry", step, error, attempt }),
      sleep,
      ...(options.random ? { random: options.random } : {}),
    });
    settle(step, outcome);
  };

  await drive(schedule, {
    concurrency: options.concurrency,
    start,
    skip,
    notStarted: (steps) => result.notStarted.push(...steps.map((step) => step.id)),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  await close(journal, result);
  return result;
}

interface Drive {
  concurrency: number;
  start: (step: Step) => Promise<void>;
  skip: (steps: Step[]) => void;
  notStarted: (steps: Step[]) => void;
  /** Aborted on an interrupt: no step starts after it; steps in flight finish. */
  signal?: AbortSignal;
}

/** Starts ready steps, `concurrency` at a time, until none is left or an interrupt stops new starts. */
async function drive(schedule: Schedule<Step>, run: Drive): Promise<void> {
  const running = new Map<string, Promise<void>>();
  const interruptReceived = aborted(run.signal);
  while (schedule.size > 0 || running.size > 0) {
    if (run.signal?.aborted) {
      run.notStarted(schedule.drain());
      if (running.size === 0) return;
      await Promise.race(running.values());
      continue;
    }
    run.skip(schedule.takeBlocked());
    for (const step of schedule.take(run.concurrency - running.size)) {
      running.set(
        step.id,
        run.start(step).finally(() => running.delete(step.id)),
      );
    }
    if (running.size === 0) {
      // Nothing runs and nothing can start: what is left waits on steps that will never finish.
      run.skip(schedule.drain());
      return;
    }
    await Promise.race([...running.values(), interruptReceived]);
  }
}

/** Ends the journal: `complete` after a whole run; left open for `apply --resume` after an interrupt. */
async function close(journal: Journal, result: ApplyResult): Promise<void> {
  if (result.notStarted.length > 0 || result.stopped.length > 0) {
    result.interrupted = true;
    await journal.flush();
    return;
  }
  journal.append({
    type: "complete",
    at: new Date().toISOString(),
    ok: result.failed.length === 0 && result.skipped.length === 0,
  });
  await journal.flush();
}

/** Refused before any step runs: a plan whose ops can't all be run is not started. */
function refuseUnhandled(plan: Plan, ops: OpRegistry): void {
  const unhandled = [...new Set(plan.steps.map((step) => step.op).filter((op) => !ops[op]))];
  if (unhandled.length > 0)
    throw new ApplyError(
      "EGP_NO_HANDLER",
      `no handler is registered for ${unhandled.join(", ")}: this egp can't apply the plan`,
    );
}

/**
 * The steps a previous run finished, to be reused rather than run again. From a superseded plan
 * (`carryOver`), they and the steps it left unfinished are written to this plan's journal too, so
 * that an interrupt of this run still knows of them.
 */
async function carryOver(
  options: ExecuteOptions,
  outputs: ReadonlyMap<string, Record<string, unknown>>,
): Promise<Step[]> {
  const { plan, journal, previous } = options;
  const carried = previous !== undefined && previous.plan.id !== plan.id;
  const interrupted = new Set(previous?.interrupted ?? []);
  const origins = new Map(previous?.origins ?? []);
  const reused: Step[] = [];
  for (const step of plan.steps) {
    const origin = origins.get(step.id);
    if (carried && interrupted.has(step.id))
      await journal.record({ type: "start", at: new Date().toISOString(), step: step.id, origin });
    const output = outputs.get(step.id);
    if (!output) continue;
    if (carried)
      await journal.record({ type: "done", at: new Date().toISOString(), step: step.id, output, origin });
    reused.push(step);
  }
  return reused;
}

/** What an op sees of the run: its step unsealed, its client, the outputs of the steps before it. */
function contextFactory(
  options: ExecuteOptions,
  outputs: ReadonlyMap<string, Record<string, unknown>>,
  sleep: (ms: number) => Promise<void>,
): (step: Step, resumed: boolean) => OpContext {
  const { plan } = options;
  const emit = options.onEvent ?? (() => undefined);
  const origins = new Map(options.previous?.origins ?? []);
  const stepsById = new Map(plan.steps.map((step) => [step.id, step]));
  const kept = new Map<string, Promise<unknown>>();
  const reads = options.reads ?? sharedReads();
  // A step waits as the instance it talks to needs: the plan's own environment, or the source.
  const environments = [options.desired.environment, options.desired.packagesFrom];
  const timeoutsOf = (environment: string): OpContext["timeouts"] => ({
    ...UNDESCRIBED_WAITS,
    ...environments.find((config) => config?.name === environment)?.waits,
    pollMs: 250,
    ...options.timeouts,
  });
  const verifyOf = (environment: string): Pick<OpContext, "verify"> => {
    const settings = environments.find((config) => config?.name === environment)?.verify;
    return settings ? { verify: settings } : {};
  };
  const clientFor = (step: Step) => {
    const client = options.clients.get(step.environment);
    if (!client)
      throw new ApplyError("EGP_NO_CONNECTION", `no connection to ${step.environment} for ${step.id}`);
    return client;
  };
  return (step, resumed) => ({
    step: unsealStep(step, plan.sensitive),
    planId: origins.get(step.id) ?? plan.id,
    client: clientFor(step),
    desired: options.desired,
    clientOfStep: (id) => {
      const other = stepsById.get(id);
      return other ? options.clients.get(other.environment) : undefined;
    },
    environmentOfStep: (id) => stepsById.get(id)?.environment,
    outputOf: (id) => outputs.get(id),
    allowDelete: plan.options.allowDelete,
    resumed,
    stateDir: options.stateDir,
    run: options.journal.run,
    ...(options.store ? { store: options.store } : {}),
    logger: options.logger,
    progress: (message, bytes, total) => emit({ type: "progress", step, message, bytes, total }),
    sleep,
    shared: <T>(name: string, read: () => Promise<T>, refresh = false) => {
      const key = `${step.environment}\u0000${name}`;
      let cached = kept.get(key) as Promise<T> | undefined;
      if (!cached || refresh) {
        cached = read();
        kept.set(key, cached);
        cached.catch(() => {
          if (kept.get(key) === cached) kept.delete(key);
        });
      }
      return cached;
    },
    reads,
    timeouts: timeoutsOf(step.environment),
    ...verifyOf(step.environment),
    stepOf: (id) => {
      const other = stepsById.get(id);
      return other ? unsealStep(other, plan.sensitive) : undefined;
    },
  });
}

import { type Logger, pino } from "pino";
import type { PlatformClient } from "../client/client.ts";
import { PLAN_RETRY_POLICY, retrying } from "../client/retry.ts";
import { EgpError } from "../errors/index.ts";
import type { DesiredState, EnvironmentConfig } from "../manifest/index.ts";
import { type Plan, type PlanOptions, printable, summarize } from "../plan/index.ts";
import { type SharedReads, sharedReads } from "../state/index.ts";
import type { ReleaseStore } from "../store/index.ts";
import { type ApplyResult, type ExecuteOptions, executePlan } from "./executor.ts";
import { Journal } from "./journal.ts";
import { acquireLock, type Lock } from "./lock.ts";
import { type ApplyKinds, BUILT_IN_APPLY_KINDS } from "./ops/index.ts";
import { assertResumable, type Carried, carryOver } from "./resume.ts";
import { unsealSaved } from "./sealed.ts";
import { assertFresh, assertSamePlan } from "./stale.ts";
import { waitForStartedInstall } from "./started-install.ts";

/*
 * One apply of one environment, as DESIGN §3 and docs/resume.md describe it: the saved plan (or the
 * interrupted one being resumed) is derived again from the live state and compared step by step;
 * an interrupted apply that is not resumed is superseded by the new plan once it is confirmed;
 * afterwards a fresh plan must show no changes. The caller brings the planner, the connections, the
 * question and the output, so that the CLI and a library caller share these rules.
 */

/** A refused combination: resuming with nothing pending, a saved plan for another environment. */
export class ApplyRefusedError extends EgpError {
  constructor(message: string) {
    super("EGP_APPLY_REFUSED", message);
    this.name = "ApplyRefusedError";
  }
}

/** What an apply did, counted as its plan counts (`Plan: A to add, C to change, …`). */
export interface ApplySummary {
  result: "complete" | "incomplete" | "no-changes";
  environment: string;
  plan: string;
  added: number;
  changed: number;
  destroyed: number;
  promoted: number;
  failed: ReadonlyArray<{ step: string; code: string; error: string }>;
  skipped: number;
}

/** Where an apply tells what it does; every method is optional. */
export interface ApplyReporter {
  /** A sentence for people; names in it are passed through `printable`. */
  say?(line: string): void;
  /** The plan about to be applied; `resumed` when it is the interrupted plan being finished. */
  plan?(plan: Plan, context: { resumed: boolean }): void;
  summary?(summary: ApplySummary): void;
  /** The fresh plan after the steps: it has no changes when the environment converged. */
  verification?(check: Plan): void;
}

/**
 * A plan of the environment from its manifests and its live state now (`planEnvironment`).
 * `reads`: the apply's reads of its instances, which the plan uses and adds to
 * (`PlanEnvironmentOptions.shared`); a replan that ignores them reads everything afresh.
 */
export type Replan = (
  options: PlanOptions,
  reads?: SharedReads,
) => Promise<{ plan: Plan; desired: DesiredState }>;

export interface ApplyPlanOptions {
  env: string;
  /** The repository's state folder (`.egp`): lock, journals, artifacts. */
  stateDir: string;
  /** The release store: install history and snapshots (any machine can roll back), release files. */
  store?: ReleaseStore;
  replan: Replan;
  /** The client of an environment; called for the environment and its package source. */
  open: (config: EnvironmentConfig) => Promise<PlatformClient>;
  /** Where the steps log (default: nowhere). */
  logger?: Logger;
  /** What a fresh plan is made with (a saved or resumed plan brings its own). */
  options?: PlanOptions;
  /** A saved plan to apply, as reviewed; `savedFile` names it in messages. */
  saved?: Plan;
  savedFile?: string;
  /** Finish the interrupted apply pending for the environment. */
  resume?: boolean;
  /** Close the interrupted apply pending for the environment, applying nothing. */
  discard?: boolean;
  /** Asked before anything is written; without it nothing is asked. */
  confirm?: (plan: Plan) => Promise<boolean>;
  report?: ApplyReporter;
  /** Runs the steps (default `executePlan`); the CLI wraps it to count steps in flight for interrupts. */
  execute?: (options: ExecuteOptions) => Promise<ApplyResult>;
  /** The key a saved plan's sealed values were made with (the CLI reads it from its environment). */
  planKey?: string;
  /** The command the lock names as its holder. */
  holder?: string;
  /**
   * Asked once the plan is derived, before anything is asked or written; it throws to refuse the
   * apply (a freeze window).
   */
  gate?: (desired: DesiredState) => Promise<void>;
  /**
   * Given the plan made from the live state once any install a killed run left is waited for,
   * before anything is asked or written (the release stage closes applies that wrote no result).
   */
  planned?: (desired: DesiredState, plan: Plan) => Promise<void>;
  /** Called once the apply is confirmed, before its first write to an instance. */
  starting?: (desired: DesiredState, plan: Plan) => Promise<void>;
  /** Called once the environment's lock is held, before anything else. */
  onLocked?: (lock: Lock) => void;
  /** Tries of a plan that fails for a passing reason (default 5), and the wait before try n. */
  planTries?: number;
  /** How a re-plan waits between tries (tests record the waits instead of sleeping). */
  planDelay?: (ms: number) => Promise<void>;
  /**
   * The kinds the plan is checked and run with (a kinds value from `createKinds`); egp's own by
   * default. `replan` must plan with the same kinds.
   */
  kinds?: ApplyKinds;
}

export type ApplyOutcome =
  | { result: "discarded"; discarded?: string; unreadable: string[] }
  | { result: "cancelled"; plan: Plan }
  | { result: "no-changes"; plan: Plan; desired: DesiredState }
  | { result: "interrupted"; plan: Plan; run: ApplyResult }
  | {
      result: "complete" | "incomplete";
      plan: Plan;
      run: ApplyResult;
      check: Plan;
      converged: boolean;
      /** What the final check was planned from (the release stage records a verified release by it). */
      desired: DesiredState;
    };

/**
 * The plans an apply makes (to resume, to apply, to verify) only read, so one that fails for a
 * passing reason (5xx, 429, a lost connection) is read again under the shared retry policy, as a
 * failed step is tried again: a plan makes many reads, and under heavy faults the client's
 * retries of one of them can run out.
 */
export function planPatiently(
  replan: Replan,
  options: PlanOptions,
  say: (line: string) => void,
  tries = PLAN_RETRY_POLICY.retries + 1,
  sleep?: (ms: number) => Promise<void>,
): ReturnType<Replan> {
  return retrying(() => replan(options), {
    policy: { ...PLAN_RETRY_POLICY, retries: tries - 1 },
    onRetry: (error, attempt) =>
      say(
        `Reading the live state failed (${printable((error as Error).message)}); reading it again (try ${attempt + 1} of ${tries}).`,
      ),
    ...(sleep ? { sleep } : {}),
  });
}

async function clientsFor(
  plan: Plan,
  desired: DesiredState,
  open: ApplyPlanOptions["open"],
): Promise<Map<string, PlatformClient>> {
  const clients = new Map<string, PlatformClient>();
  clients.set(desired.environment.name, await open(desired.environment));
  if (desired.packagesFrom && plan.steps.some((s) => s.environment === desired.packagesFrom?.name)) {
    clients.set(desired.packagesFrom.name, await open(desired.packagesFrom));
  }
  return clients;
}

function noChanges(env: string, plan: Plan): ApplySummary {
  return {
    result: "no-changes",
    environment: env,
    plan: plan.id,
    added: 0,
    changed: 0,
    destroyed: 0,
    promoted: 0,
    failed: [],
    skipped: 0,
  };
}

export function summaryOf(
  plan: Plan,
  result: ApplyResult,
): ApplySummary & { result: "complete" | "incomplete" } {
  const completed = new Set([...result.done, ...result.reused]);
  const done = plan.changes.filter((change) =>
    plan.steps.filter((s) => s.change === change.id).every((s) => completed.has(s.id)),
  );
  // Counted as the plan counts them (summarize), so that the two agree.
  const counted = summarize(done);
  const ok = result.failed.length === 0 && result.skipped.length === 0;
  return {
    result: ok ? "complete" : "incomplete",
    environment: plan.environment,
    plan: plan.id,
    added: counted.add,
    changed: counted.change,
    destroyed: counted.destroy,
    promoted: counted.promote,
    failed: result.failed,
    skipped: result.skipped.length,
  };
}

/** Which plan runs: the saved one, the interrupted one being resumed, or a fresh one. */
function assertCombination(options: ApplyPlanOptions, pending: ReturnType<typeof Journal.unfinished>): void {
  const { env, saved, savedFile = "the saved plan" } = options;
  if (saved && (options.options?.targets || options.options?.manifests))
    throw new ApplyRefusedError(
      `${savedFile}: a saved plan applies what it was made with (its own --target and --manifests); give them to egp plan`,
    );
  if (saved && saved.environment !== env)
    throw new ApplyRefusedError(`${savedFile} is a plan for ${saved.environment}, not ${env}`);
  // A rollback is planned from the install history, not the manifests: its own command re-plans it.
  if (saved?.changes.some((change) => change.action === "rollback"))
    throw new ApplyRefusedError(`${savedFile} is a rollback's plan; run it with 'egp rollback ${savedFile}'`);
  if (options.resume && !pending)
    throw new ApplyRefusedError(`--resume: no interrupted apply is pending for ${env}`);
  if (options.resume && saved && saved.id !== pending?.state.plan.id)
    throw new ApplyRefusedError(
      `--resume: ${savedFile} is plan ${saved.id}, but the interrupted apply pending for ${env} is plan ${pending?.state.plan.id}`,
    );
}

/** Applies one environment under its lock: discard, resume, supersede, run, verify. */
export async function applyPlan(options: ApplyPlanOptions): Promise<ApplyOutcome> {
  const { env, stateDir, report = {} } = options;
  const say = (line: string) => report.say?.(line);
  const lock = acquireLock(stateDir, env, options.holder ?? `egp apply --env ${env}`);
  try {
    options.onLocked?.(lock);
    if (lock.tookOver) {
      const { pid, host, startedAt } = lock.tookOver;
      say(`Took over the lock of pid ${pid} on ${host} (since ${startedAt}), which is gone.`);
    }
    return await underLock(options, say);
  } finally {
    lock.release();
  }
}

async function underLock(options: ApplyPlanOptions, say: (line: string) => void): Promise<ApplyOutcome> {
  const { env, stateDir, saved, report = {} } = options;
  const kinds = options.kinds ?? BUILT_IN_APPLY_KINDS;
  const unreadable = options.discard
    ? Journal.discardUnreadable(stateDir, Journal.folder(stateDir, env), kinds.steps)
    : [];
  for (const journal of unreadable) say(`Discarded ${journal}, an apply journal egp can't read.`);
  const pending = Journal.unfinished(stateDir, env, kinds.steps);
  const progress = pending
    ? `plan ${pending.state.plan.id}, ${pending.state.done.size} of ${pending.state.plan.steps.length} steps done`
    : "";
  if (options.discard) {
    if (pending) {
      pending.journal.close("discarded");
      say(`Discarded the interrupted apply of ${env} (${progress}).`);
    } else if (unreadable.length === 0)
      say(`No interrupted apply is pending for ${env}; nothing to discard.`);
    return { result: "discarded", ...(pending ? { discarded: pending.state.plan.id } : {}), unreadable };
  }
  assertCombination(options, pending);
  const resuming = pending && (options.resume || saved?.id === pending.state.plan.id) ? pending : undefined;
  if (pending && !resuming)
    say(
      `An interrupted apply is pending for ${env} (${progress}). This apply plans afresh from the live state, ` +
        `which shows what it did, and discards it once confirmed; to finish it instead: 'egp apply --env ${env} --resume'.`,
    );

  // A saved plan (or the interrupted one being resumed) is derived again with the options it was
  // made with, its targets included, to be compared step by step.
  const planOptions = saved
    ? saved.options
    : resuming
      ? resuming.state.plan.options
      : (options.options ?? {});
  // The metadata the plan reads is what the snapshot before an install packages and describes; what
  // the install's verify reads is what the final check compares. Each is dropped once it may be stale.
  const reads = sharedReads();
  const replan = () =>
    planPatiently(
      (planned) => options.replan(planned, reads),
      planOptions,
      say,
      options.planTries,
      options.planDelay,
    );
  // A person may take a while to answer: what the plan read of the environment is read again.
  const confirmed = async (plan: Plan) => {
    if (!options.confirm) return true;
    const yes = await options.confirm(plan);
    reads.forget(env);
    return yes;
  };
  let fresh = await replan();
  await options.gate?.(fresh.desired);
  // An install a killed run left running is waited for before the plan that decides what to do.
  if (
    !resuming &&
    options.store &&
    (fresh.desired.packages.length > 0 || fresh.desired.release) &&
    (await waitForStartedInstall({
      store: options.store,
      stateDir,
      environment: fresh.desired.environment,
      open: options.open,
      say,
    }))
  ) {
    reads.forget(env);
    fresh = await replan();
  }
  await options.planned?.(fresh.desired, fresh.plan);
  let plan = fresh.plan;
  let previous: Carried | undefined;
  if (resuming) {
    assertResumable(resuming.state, fresh.plan, kinds.steps);
    plan = unsealSaved(resuming.state.plan, fresh.plan, options.planKey);
    previous = resuming.state;
    say(
      `Resuming plan ${plan.id} from ${resuming.journal.file} (${resuming.state.done.size} of ${plan.steps.length} steps done).`,
    );
    report.plan?.(plan, { resumed: true });
    if (!(await confirmed(plan))) return { result: "cancelled", plan };
  } else {
    if (saved) {
      assertFresh(saved, fresh.plan, undefined, kinds.live);
      assertSamePlan(saved, fresh.plan, undefined, kinds.steps);
      plan = unsealSaved(saved, fresh.plan, options.planKey);
    }
    report.plan?.(plan, { resumed: false });
    if (plan.changes.length === 0) {
      pending?.journal.close("superseded", plan.id);
      if (pending) say(`Discarded the interrupted apply (${progress}): nothing is left to do.`);
      report.summary?.(noChanges(env, plan));
      return { result: "no-changes", plan, desired: fresh.desired };
    }
    if (!(await confirmed(plan))) return { result: "cancelled", plan };
    if (pending) {
      pending.journal.close("superseded", plan.id);
      previous = carryOver(pending.state, plan, kinds.outlivePlan);
      say(`Discarded the interrupted apply (${progress}), superseded by plan ${plan.id}.`);
    }
  }
  await options.starting?.(fresh.desired, plan);
  const run = await (options.execute ?? executePlan)({
    plan,
    desired: fresh.desired,
    clients: await clientsFor(plan, fresh.desired, options.open),
    journal: Journal.open(stateDir, plan, { steps: kinds.steps }),
    previous,
    ops: kinds.ops,
    stateDir,
    ...(options.store ? { store: options.store } : {}),
    reads,
    concurrency: fresh.desired.environment.limits.concurrency,
    logger: options.logger ?? pino({ level: "silent" }),
  });
  if (run.interrupted) return { result: "interrupted", plan, run };
  const summary = summaryOf(plan, run);
  report.summary?.(summary);

  const checked = await replan();
  const check = checked.plan;
  report.verification?.(check);
  const converged = check.changes.length === 0;
  return { result: summary.result, plan, run, check, converged, desired: checked.desired };
}

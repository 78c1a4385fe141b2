import { type Logger, pino } from "pino";
import type { PlatformClient } from "../client/client.ts";
import type { DesiredState } from "../manifest/index.ts";
import { type Plan, rollbackOfPlan } from "../plan/index.ts";
import type { ReleaseStore } from "../store/index.ts";
import { ApplyRefusedError } from "./apply-plan.ts";
import { type ApplyResult, type ExecuteOptions, executePlan } from "./executor.ts";
import { publishInstall } from "./history.ts";
import { Journal } from "./journal.ts";
import { acquireLock, type Lock } from "./lock.ts";
import { markRolledBack } from "./releases.ts";
import { carryOver } from "./resume.ts";
import { type PreparedRollback, prepareRollback, rollbackJournalFolder } from "./rollback.ts";
import { assertFresh, assertSamePlan } from "./stale.ts";

/*
 * One rollback of one environment under its lock (docs/promotion.md): plan the snapshot's install,
 * ask, run it in a journal of its own (a killed rollback run again supersedes its journal and
 * reuses the upload it had made), and record it on the release once every step ran. A saved
 * rollback's plan (`--out`) runs only if planning the same install again gives the same plan, as a
 * saved plan does on apply.
 */

export interface RollBackOptions {
  env: string;
  stateDir: string;
  /** The environment as its file describes it (no manifests: a rollback installs a snapshot). */
  desired: DesiredState;
  /** The environment's client, opened once the lock is held. */
  open: (config: DesiredState["environment"]) => Promise<PlatformClient>;
  /** The install history and snapshots (`openProjectStore(dir)` opens the one egp.yaml names). */
  store: ReleaseStore;
  /** The release to undo (default: the newest). */
  to?: string;
  prefix?: string;
  /** Called with the rollback's plan before anything is asked (the CLI saves it with `--out`). */
  onPrepared?: (prepared: PreparedRollback) => void | Promise<void>;
  /** Plan only: nothing is asked or written but the plan (`onPrepared`); the result is `planned`. */
  planOnly?: boolean;
  /** A rollback's plan saved earlier, as reviewed: its install and prefix are planned again and compared. */
  saved?: Plan;
  /** Names the saved plan in messages. */
  savedFile?: string;
  /** Asked before anything is written; without it nothing is asked. */
  confirm?: (plan: Plan) => Promise<boolean>;
  execute?: (options: ExecuteOptions) => Promise<ApplyResult>;
  logger?: Logger;
  holder?: string;
  onLocked?: (lock: Lock) => void;
}

export type RollBackOutcome = PreparedRollback &
  (
    | { result: "nothing-to-do" | "cancelled" | "planned" }
    | { result: "interrupted" | "incomplete" | "complete"; run: ApplyResult }
  );

/** What a saved plan rolls back, or the refusal of a plan that is not a rollback's of `env`. */
function savedRollback(options: RollBackOptions): { release: string; prefix: string } | undefined {
  const { saved, savedFile = "the saved plan", env } = options;
  if (!saved) return undefined;
  if (saved.environment !== env)
    throw new ApplyRefusedError(`${savedFile} is a plan for ${saved.environment}, not ${env}`);
  const made = rollbackOfPlan(saved);
  if (!made)
    throw new ApplyRefusedError(
      `${savedFile} is not a rollback's plan (apply it with 'egp apply ${savedFile}')`,
    );
  if (options.to !== undefined && options.to !== made.release)
    throw new ApplyRefusedError(`${savedFile} rolls back ${made.release}, not ${options.to}`);
  return made;
}

export async function rollBack(options: RollBackOptions): Promise<RollBackOutcome> {
  const { env, stateDir, desired } = options;
  const made = savedRollback(options);
  const lock = acquireLock(stateDir, env, options.holder ?? `egp rollback --env ${env}`);
  try {
    options.onLocked?.(lock);
    const client = await options.open(desired.environment);
    const prepared = await prepareRollback(stateDir, env, client, {
      to: made?.release ?? options.to,
      prefix: made?.prefix ?? options.prefix,
      installCodes: desired.environment.installCodes,
      store: options.store,
    });
    const { plan } = prepared.rollback;
    if (options.saved) {
      const again = `Run egp rollback --env ${env} --plan-only --out FILE again.`;
      assertFresh(options.saved, plan, again);
      assertSamePlan(options.saved, plan, again);
    }
    await options.onPrepared?.(prepared);
    if (plan.changes.length === 0) return { ...prepared, result: "nothing-to-do" };
    if (options.planOnly) return { ...prepared, result: "planned" };
    if (options.confirm && !(await options.confirm(plan))) return { ...prepared, result: "cancelled" };

    const folder = rollbackJournalFolder(stateDir, env);
    const pending = Journal.unfinishedIn(stateDir, folder);
    const previous = pending ? carryOver(pending.state, plan) : undefined;
    if (pending && pending.state.plan.id !== plan.id) pending.journal.close("superseded", plan.id);
    const run = await (options.execute ?? executePlan)({
      plan,
      desired,
      clients: new Map([[env, client]]),
      journal: Journal.open(stateDir, plan, { folder }),
      previous,
      stateDir,
      store: options.store,
      concurrency: 1,
      logger: options.logger ?? pino({ level: "silent" }),
    });
    if (run.interrupted) return { ...prepared, result: "interrupted", run };
    if (run.failed.length > 0 || run.skipped.length > 0) return { ...prepared, result: "incomplete", run };
    const rolledBack = markRolledBack(stateDir, env, prepared.release.id, plan.id, new Date().toISOString());
    if (rolledBack) await publishInstall(options.store, stateDir, rolledBack);
    return { ...prepared, result: "complete", run };
  } finally {
    lock.release();
  }
}

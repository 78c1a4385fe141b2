import { type Logger, pino } from "pino";
import type { PlatformClient } from "../client/client.ts";
import type { DesiredState } from "../manifest/index.ts";
import type { Plan } from "../plan/index.ts";
import type { ReleaseStore } from "../store/index.ts";
import { type ApplyResult, type ExecuteOptions, executePlan } from "./executor.ts";
import { publishInstall } from "./history.ts";
import { Journal } from "./journal.ts";
import { acquireLock, type Lock } from "./lock.ts";
import { markRolledBack } from "./releases.ts";
import { carryOver } from "./resume.ts";
import { type PreparedRollback, prepareRollback, rollbackJournalFolder } from "./rollback.ts";

/*
 * One rollback of one environment under its lock (docs/promotion.md): plan the snapshot's install,
 * ask, run it in a journal of its own (a killed rollback run again supersedes its journal and
 * reuses the upload it had made), and record it on the release once every step ran.
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
  /** Asked before anything is written; without it nothing is asked. */
  confirm?: (plan: Plan) => Promise<boolean>;
  execute?: (options: ExecuteOptions) => Promise<ApplyResult>;
  logger?: Logger;
  holder?: string;
  onLocked?: (lock: Lock) => void;
}

export type RollBackOutcome = PreparedRollback &
  (
    | { result: "nothing-to-do" | "cancelled" }
    | { result: "interrupted" | "incomplete" | "complete"; run: ApplyResult }
  );

export async function rollBack(options: RollBackOptions): Promise<RollBackOutcome> {
  const { env, stateDir, desired } = options;
  const lock = acquireLock(stateDir, env, options.holder ?? `egp rollback --env ${env}`);
  try {
    options.onLocked?.(lock);
    const client = await options.open(desired.environment);
    const prepared = await prepareRollback(stateDir, env, client, {
      to: options.to,
      prefix: options.prefix,
      installCodes: desired.environment.installCodes,
      store: options.store,
    });
    const { plan } = prepared.rollback;
    await options.onPrepared?.(prepared);
    if (plan.changes.length === 0) return { ...prepared, result: "nothing-to-do" };
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

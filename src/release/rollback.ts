import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Logger, pino } from "pino";
import { ApplyRefusedError } from "../apply/apply-plan.ts";
import { artifactPath, verifiedArtifact } from "../apply/artifacts.ts";
import { type ApplyResult, type ExecuteOptions, executePlan } from "../apply/executor.ts";
import { cacheInstall, historyToRollBack, publishInstall } from "../apply/history.ts";
import { Journal } from "../apply/journal.ts";
import { acquireLock, type Lock } from "../apply/lock.ts";
import { markRolledBack, ReleaseError, type ReleaseRecord } from "../apply/releases.ts";
import { carryOver } from "../apply/resume.ts";
import { assertFresh, assertSamePlan } from "../apply/stale.ts";
import type { Verdict } from "../apply/verdict.ts";
import type { PlatformClient } from "../client/client.ts";
import { openProjectStore } from "../compose/project-store.ts";
import type { DesiredState, InstallCodeOverrides } from "../manifest/index.ts";
import { environmentOf, readRepository } from "../manifest/index.ts";
import { installName, type Plan, printable } from "../plan/index.ts";
import { readPackageParts } from "../state/index.ts";
import { assertCanSign, type ReleaseStore } from "../store/index.ts";
import { checkActor } from "./actor.ts";
import { rollbackEntry, writeAudit } from "./audit-trail.ts";
import { type Notice, notifierFor } from "./notify.ts";
import { DEFAULT_ROLLBACK_PREFIX, planRollback, type RollbackPlan, rollbackOfPlan } from "./rollback-plan.ts";
import { type RecordRollbackOutcome, recordSnapshotToRollBack, rollbackRecords } from "./rollback-records.ts";
import { endSoaks } from "./verified.ts";

/*
 * Rollback, in one place (docs/promotion.md): what it needs before it asks (the install to undo,
 * the newest or the one named, its snapshot file, and the target's objects as they are now,
 * planned by the pure planRollback of ./rollback-plan.ts); one run under the environment's lock
 * (ask, run in a journal of its own: a killed rollback run again supersedes its journal and reuses
 * the upload it had made; record it on the install once every step ran; a saved rollback's plan
 * runs only if planning the same install again gives the same plan, as a saved plan does on
 * apply); how it ended, in words; and the governed entry point that audits and notifies it.
 */

export interface PreparedRollback {
  release: ReleaseRecord;
  rollback: RollbackPlan;
}

/** The install to undo, its snapshot checked, and the rollback's plan against the target now. */
async function prepareRollback(
  stateDir: string,
  env: string,
  client: PlatformClient,
  options: { store: ReleaseStore; to?: string; prefix?: string; installCodes?: InstallCodeOverrides },
): Promise<PreparedRollback> {
  const { store } = options;
  // The store's history is the truth, so a machine that never promoted can roll back.
  const release = await historyToRollBack(store, env, options.to);
  await cacheInstall(store, stateDir, release);
  const snapshot = release.snapshot;
  if (!snapshot) throw new ReleaseError("EGP_RELEASE_UNUSABLE", `${installName(release)} has no snapshot`);
  const file = artifactPath(stateDir, snapshot.digest);
  if (!existsSync(file))
    throw new ReleaseError(
      "EGP_RELEASE_UNUSABLE",
      `the snapshot of ${installName(release)}, ${file}, is gone; nothing to roll back to`,
    );
  await verifiedArtifact(stateDir, snapshot.digest).catch((error: Error) => {
    throw new ReleaseError(
      "EGP_RELEASE_UNUSABLE",
      `the snapshot of ${installName(release)} can't be used: ${error.message}`,
    );
  });
  const live = await readPackageParts(
    client,
    snapshot.objects.map((o) => ({ guid: o.guid, type: o.type })),
  );
  const rollback = planRollback({
    release: { ...release, snapshot },
    live,
    prefix: options.prefix ?? DEFAULT_ROLLBACK_PREFIX,
    createdAt: new Date().toISOString(),
    installCodes: options.installCodes,
  });
  return { release, rollback };
}

/** Rollbacks keep their journals apart, so that `apply --resume` never offers one. */
function rollbackJournalFolder(stateDir: string, env: string): string {
  return join(Journal.folder(stateDir, env), "rollback");
}

interface RunRollbackOptions {
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
  /** Asked before anything is written; without it nothing is asked. A records rollback has no plan. */
  confirm?: (plan?: Plan) => Promise<boolean>;
  execute?: (options: ExecuteOptions) => Promise<ApplyResult>;
  logger?: Logger;
  holder?: string;
  onLocked?: (lock: Lock) => void;
}

export type RollbackOutcome = PreparedRollback &
  (
    | { result: "nothing-to-do" | "cancelled" | "planned" }
    | { result: "interrupted" | "incomplete" | "complete"; run: ApplyResult }
  );

/** What a saved plan rolls back, or the refusal of a plan that is not a rollback's of `env`. */
function savedRollback(options: RunRollbackOptions): { release: string; prefix: string } | undefined {
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

async function runRollback(options: RunRollbackOptions): Promise<RollbackOutcome> {
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

/** What a rollback run again does after an interrupt. */
export const rollbackAgain = (env: string) => `Interrupted; run 'egp rollback --env ${env}' again to finish.`;

/** `out`: where the rollback's plan was saved, if it was. */
export function rollbackVerdict(env: string, outcome: RollbackOutcome, out: string | undefined): Verdict {
  const { release, rollback } = outcome;
  const snapshot = `the snapshot of ${printable(installName(release))}`;
  switch (outcome.result) {
    case "nothing-to-do":
      return {
        lines: [
          `Nothing to roll back: ${env} already has the versions ${snapshot} holds.`,
          ...rollback.notes.map((note) => `  # ${printable(note)}`),
        ],
      };
    case "planned":
      return {
        lines: [
          out
            ? `\nSaved the rollback's plan to ${printable(out)}; run it with 'egp rollback ${printable(out)}'.`
            : "\nPlanned only: nothing was changed.",
        ],
      };
    case "cancelled":
      return { lines: [], failure: { message: "rollback cancelled", code: "EGP_CANCELLED" } };
    case "interrupted":
      return { lines: [], failure: { message: rollbackAgain(env), code: "EGP_INTERRUPTED" } };
    case "incomplete": {
      const { failed, skipped } = outcome.run;
      return {
        lines: [
          `\nRollback incomplete: ${failed.length} step(s) failed, ${skipped.length} skipped.`,
          ...failed.map((failure) => `  ${printable(`${failure.step}: ${failure.error}`)}`),
        ],
        failure: { message: "rollback finished with failed steps", code: "EGP_ROLLBACK_FAILED" },
      };
    }
    case "complete":
      return {
        lines: [
          `\nRollback complete: ${env} has the versions of ${snapshot} again.`,
          `Verified: every part the snapshot holds reads as it did on ${release.snapshot?.takenAt}.`,
          ...rollback.notes.slice(1).map((note) => `Not undone: ${printable(note)}.`),
          ...(release.release
            ? [
                `If release ${release.release} must never be promoted again: egp release reject ${release.release} --reason '…'`,
              ]
            : []),
        ],
      };
  }
}

export interface RollbackOptions extends Omit<RunRollbackOptions, "desired" | "store"> {
  /** The repository: the environment's file and egp.yaml (its store and webhooks). */
  dir: string;
  /** The release store (default: the one egp.yaml names, as `openProjectStore(dir)` opens it). */
  store?: ReleaseStore;
  /** Where a record or a notification that could not be made is said (default: nowhere). */
  say?: (line: string) => void;
}

/** The notice of a rollback that ran: rolled back once every step ran, failed otherwise. */
export function rollbackNotice(
  env: string,
  outcome: RollbackOutcome & { run: ApplyResult },
): Notice | undefined {
  if (outcome.result === "interrupted") return undefined;
  const { release, run } = outcome;
  const base = { environment: env, ...(release.release ? { release: release.release } : {}) };
  const what = `${installName(release)} (package ${release.package.name})`;
  if (outcome.result === "complete")
    return { ...base, event: "rolled-back", summary: `rolled back ${what}; the snapshot reads back` };
  const failed = run.failed.map((f) => f.step).join(", ");
  return { ...base, event: "failed", summary: `rollback of ${what} incomplete; steps failed: ${failed}` };
}

/**
 * The governed rollback: the one way egp rolls an environment back. It is never frozen (a freeze
 * keeps changes out; a rollback takes one back, and must be possible at any hour); once it ran, its
 * audit record is written and the `rolled-back` (or `failed`) notification sent.
 */
export async function rollback(options: RollbackOptions): Promise<RollbackOutcome | RecordRollbackOutcome> {
  const { dir, env } = options;
  const say = options.say ?? (() => undefined);
  const repository = await readRepository(dir);
  const { state: desired } = environmentOf({ ...repository, manifests: [] }, env);
  const store = options.store ?? (await openProjectStore(dir));
  assertCanSign(store);
  checkActor();
  // The newest change may be a records apply, which has a record snapshot instead of an install.
  const records = options.saved ? undefined : await recordSnapshotToRollBack(store, env, options.to);
  if (records)
    return rollbackRecords({ ...options, desired, store, snapshot: records, say, confirm: options.confirm });
  const outcome = await runRollback({ ...options, desired, store });
  if (!("run" in outcome)) return outcome;
  // A rollback changed what a soak watches: the soak ends as not verified, as an apply's does.
  for (const release of await endSoaks(store, env, `a rollback of ${env} ran during the soak`))
    say(
      `The soak of release ${release} on ${env} ends here: recorded not verified (a rollback during the soak).`,
    );
  await writeAudit(store, rollbackEntry(desired, outcome), say);
  const notice = rollbackNotice(env, outcome);
  if (notice) await (await notifierFor(dir, say))(notice);
  return outcome;
}

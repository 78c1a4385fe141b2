import type { ApplyOutcome, ApplyPlanOptions } from "../apply/apply-plan.ts";
import { applyPlan } from "../apply/apply-plan.ts";
import type { Kinds } from "../compose/kinds.ts";
import { openProjectStore } from "../compose/project-store.ts";
import type { DesiredState, ManifestCache } from "../manifest/index.ts";
import { type Plan, printable } from "../plan/index.ts";
import { assertCanSign, type ReleaseStore } from "../store/index.ts";
import { assertAuditWhole } from "./audit-chain.ts";
import { applyEntry, startedEntry, writeAudit } from "./audit-trail.ts";
import type { FreezeDecision } from "./freeze.ts";
import { describeWindow } from "./freeze.ts";
import { actorOf, assertNotFrozen, FrozenError } from "./freeze-gate.ts";
import { applyNotice, notifierFor } from "./notify.ts";
import { planEnvironment } from "./plan.ts";
import { reachedDigest } from "./reached.ts";
import { createdRecordsNoted, keepRecordSnapshot } from "./record-snapshot.ts";
import { closeUnfinished } from "./unfinished.ts";
import { endSoaks, recordVerified, type VerificationState } from "./verified.ts";
import { type CheckResult, checksFailure, runChecks } from "./verify-checks.ts";

/*
 * The governed apply: the one way egp applies a plan to an environment, for the CLI and a library
 * caller alike. Its plans pass the release gate (./plan.ts); once the plan is derived the freeze
 * gate is asked before anything is asked or written; once it ends the release's verification is
 * recorded, the audit record written and the notification sent. The caller brings the
 * connections, the question and the output, never the planner: a plan it made could skip a gate.
 */

export interface ApplyOptions extends Omit<ApplyPlanOptions, "replan" | "gate" | "store" | "kinds"> {
  /** The repository: environments/, manifests/, releases/, freeze-exceptions/ and egp.yaml. */
  dir: string;
  /** The release store (default: the one egp.yaml names, as `openProjectStore(dir)` opens it). */
  store?: ReleaseStore;
  /** Parsed manifests kept between runs (`.egp/cache/`); none by default. */
  cache?: ManifestCache;
  /** The clock the freeze gate reads (default: now). */
  now?: () => Date;
  /** The kinds to plan and apply (`createKinds([...builtInKinds, ...plugins])`); egp's own by default. */
  kinds?: Kinds;
}

interface Governed {
  gate(desired: DesiredState): Promise<void>;
  /** Closes the applies of the environment that started and wrote no result, from the live state. */
  planned(desired: DesiredState, plan: Plan): Promise<void>;
  /** Appends the `apply-started` record before the first write to the instance. */
  starting(desired: DesiredState, plan: Plan): Promise<void>;
  /** Records and tells how the apply ended; never throws. */
  ended(
    how: { outcome: ApplyOutcome } | { error: unknown },
    verified?: boolean,
    checks?: readonly CheckResult[],
  ): Promise<void>;
}

async function governed(options: ApplyOptions, store: ReleaseStore, say: (line: string) => void) {
  const { dir, env } = options;
  const notify = await notifierFor(dir, say);
  const actor = actorOf();
  let desired: DesiredState | undefined;
  let freeze: FreezeDecision | undefined;
  let started: number | undefined;
  const governance: Governed = {
    async gate(given) {
      desired = given;
      const now = options.now?.() ?? new Date();
      freeze = await assertNotFrozen({ dir, environment: given.environment, actor, now }).catch((error) => {
        if (error instanceof FrozenError) freeze = { ...error.decision };
        throw error;
      });
      if (freeze.state === "excepted")
        say(
          `${env} is frozen (${describeWindow(freeze.window)}); ${actor} goes through under ${freeze.exception.file} (${freeze.exception.reason}), until ${freeze.exception.until}.`,
        );
    },
    async planned(given, plan) {
      await closeUnfinished(store, given, plan, say);
    },
    async starting(given, plan) {
      await endSoaksOf(store, env, say);
      await keepRecordSnapshot(store, plan);
      started = (await writeAudit(store, startedEntry(given, plan), say))?.sequence;
    },
    async ended(how, verified, checks) {
      const entry = applyEntry({
        environment: env,
        ...(desired ? { desired } : {}),
        ...(freeze ? { freeze } : {}),
        ended: how,
        ...(verified ? { verified } : {}),
        ...(started === undefined ? {} : { started }),
        ...(checks?.length ? { checks } : {}),
      });
      await writeAudit(store, entry, say);
      const notice = applyNotice(env, desired?.release?.name, how);
      if (notice) await notify(notice);
    },
  };
  return governance;
}

/**
 * Any apply to an environment during a soak ends it as not verified, before the apply's first write
 * (or, with nothing to install, before its verification is recorded): what the soak was watching
 * is no longer what the apply leaves. An apply that verifies the release again starts a new soak.
 */
async function endSoaksOf(store: ReleaseStore, env: string, say: (line: string) => void): Promise<void> {
  const ended = await endSoaks(store, env, `an apply to ${env} started during the soak`);
  for (const release of ended)
    say(
      `The soak of release ${release} on ${env} ends here: recorded not verified (an apply during the soak).`,
    );
}

/** What the apply says of a verification it recorded: verified, or soaking until a time. */
function verifiedLine(env: string, release: string, state: VerificationState, stored: boolean): string {
  const where = stored ? "; recorded in the release store" : "";
  if (state.state === "soaking")
    return `Verified, soaking: ${env} runs release ${release}${where}; it counts as verified once 'egp verify --env ${env}' after ${state.until} finds nothing changed.`;
  return `Verified: ${env} runs release ${release}${where}.`;
}

/**
 * A release verified by this apply is recorded for the `requiresVerifiedOn` gate of the
 * environments after it: verified, or soaking when the environment has `verify.soak`.
 */
async function recordVerification(
  store: ReleaseStore,
  outcome: ApplyOutcome,
  open: ApplyOptions["open"],
  say: (line: string) => void,
): Promise<VerificationState | undefined> {
  if (outcome.result !== "no-changes" && outcome.result !== "complete" && outcome.result !== "incomplete")
    return undefined;
  const release = outcome.desired.release?.name;
  if (!release) return undefined;
  let reached: string | undefined;
  try {
    reached = await reachedDigest(store, outcome.desired.environment, open);
  } catch (error) {
    say(
      `WARNING: ${outcome.plan.environment} is not recorded as verified: the instance did not answer who it is (${printable((error as Error).message)}).`,
    );
    return undefined;
  }
  const env = outcome.plan.environment;
  if (outcome.result === "no-changes") {
    const state = await recordVerified(store, outcome.desired, outcome.plan, reached);
    if (state) say(verifiedLine(env, release, state, false));
    return state;
  }
  if (outcome.run.failed.length > 0) return undefined;
  const state = await recordVerified(store, outcome.desired, outcome.check, reached);
  if (state) say(verifiedLine(env, release, state, true));
  return state;
}

/** Applies one environment under its gates; the outcome as `applyPlan`'s, audited and notified. */
export async function apply(options: ApplyOptions): Promise<ApplyOutcome> {
  const { dir, env, cache, now: _now, ...rest } = options;
  const say = (line: string) => options.report?.say?.(line);
  const store = options.store ?? (await openProjectStore(dir));
  assertCanSign(store);
  await assertAuditWhole(store);
  const governance = await governed(options, store, say);
  let checks: CheckResult[] = [];
  try {
    const outcome = await applyPlan({
      ...rest,
      env,
      store,
      replan: (planOptions, reads) =>
        planEnvironment({
          dir,
          env,
          options: planOptions,
          open: options.open,
          store,
          ...(options.logger ? { logger: options.logger } : {}),
          ...(cache ? { cache } : {}),
          ...(reads ? { shared: reads } : {}),
          ...(options.kinds ? { kinds: options.kinds } : {}),
        }),
      gate: governance.gate,
      planned: governance.planned,
      starting: governance.starting,
      execute: createdRecordsNoted(store, say, options.execute),
    });
    if (outcome.result === "no-changes") await endSoaksOf(store, env, say);
    checks = await checksOf(outcome, options.open, say);
    const failure = checksFailure(env, checks);
    if (failure) throw failure;
    const verification = await recordVerification(store, outcome, options.open, say);
    await governance.ended({ outcome }, verification?.state === "verified", checks);
    return outcome;
  } catch (error) {
    await governance.ended({ error }, undefined, checks);
    throw error;
  }
}

/**
 * The environment's checks of behaviour (`verify.checks`), run once the apply converged and before
 * its release counts as verified; none when it did not converge or lists none.
 */
async function checksOf(
  outcome: ApplyOutcome,
  open: ApplyOptions["open"],
  say: (line: string) => void,
): Promise<CheckResult[]> {
  const converged = outcome.result === "no-changes" || (outcome.result === "complete" && outcome.converged);
  if (!converged) return [];
  const checks = outcome.desired.environment.verify?.checks ?? [];
  if (checks.length === 0) return [];
  const results = await runChecks(await open(outcome.desired.environment), checks);
  for (const result of results)
    say(
      `Check ${result.passed ? "passed" : "FAILED"}: ${printable(result.check)}: ${printable(result.found)}`,
    );
  return results;
}

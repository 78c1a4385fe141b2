import type { ApplyOutcome, ApplyPlanOptions } from "../apply/apply-plan.ts";
import { applyPlan } from "../apply/apply-plan.ts";
import type { Kinds } from "../compose/kinds.ts";
import { openProjectStore } from "../compose/project-store.ts";
import type { DesiredState, ManifestCache } from "../manifest/index.ts";
import { assertCanSign, type ReleaseStore } from "../store/index.ts";
import { applyEntry, writeAudit } from "./audit-trail.ts";
import type { FreezeDecision } from "./freeze.ts";
import { describeWindow } from "./freeze.ts";
import { actorOf, assertNotFrozen, FrozenError } from "./freeze-gate.ts";
import { applyNotice, notifierFor } from "./notify.ts";
import { planEnvironment } from "./plan.ts";
import { recordVerified } from "./verified.ts";

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
  /** Records and tells how the apply ended; never throws. */
  ended(how: { outcome: ApplyOutcome } | { error: unknown }): Promise<void>;
}

async function governed(options: ApplyOptions, store: ReleaseStore, say: (line: string) => void) {
  const { dir, env } = options;
  const notify = await notifierFor(dir, say);
  const actor = actorOf();
  let desired: DesiredState | undefined;
  let freeze: FreezeDecision | undefined;
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
    async ended(how) {
      const entry = applyEntry({
        environment: env,
        ...(desired ? { desired } : {}),
        ...(freeze ? { freeze } : {}),
        ended: how,
      });
      await writeAudit(store, entry, say);
      const notice = applyNotice(env, desired?.release?.name, how);
      if (notice) await notify(notice);
    },
  };
  return governance;
}

/** A release verified by this apply is recorded for the `requiresVerifiedOn` gate of the environments after it. */
async function recordVerification(store: ReleaseStore, outcome: ApplyOutcome, say: (line: string) => void) {
  if (outcome.result === "no-changes") {
    if (await recordVerified(store, outcome.desired, outcome.plan))
      say(`Verified: ${outcome.plan.environment} runs release ${outcome.desired.release?.name}.`);
  } else if (outcome.result === "complete" || outcome.result === "incomplete") {
    if (outcome.run.failed.length === 0 && (await recordVerified(store, outcome.desired, outcome.check)))
      say(
        `Verified: ${outcome.plan.environment} runs release ${outcome.desired.release?.name}; recorded in the release store.`,
      );
  }
}

/** Applies one environment under its gates; the outcome as `applyPlan`'s, audited and notified. */
export async function apply(options: ApplyOptions): Promise<ApplyOutcome> {
  const { dir, env, cache, now: _now, ...rest } = options;
  const say = (line: string) => options.report?.say?.(line);
  const store = options.store ?? (await openProjectStore(dir));
  assertCanSign(store);
  const governance = await governed(options, store, say);
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
    });
    await recordVerification(store, outcome, say);
    await governance.ended({ outcome });
    return outcome;
  } catch (error) {
    await governance.ended({ error });
    throw error;
  }
}

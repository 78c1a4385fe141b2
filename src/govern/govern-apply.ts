import type { ApplyOutcome } from "../apply/apply-plan.ts";
import { actorOf, assertNotFrozen, FrozenError } from "../compose/freeze-gate.ts";
import { ReleaseGateError } from "../compose/release-gate.ts";
import type { DesiredState } from "../manifest/index.ts";
import type { FreezeDecision } from "../plan/freeze.ts";
import { describeWindow } from "../plan/freeze.ts";
import type { ReleaseStore } from "../store/index.ts";
import { applyEntry, writeAudit } from "./audit-trail.ts";
import { applyNotice, notifierFor } from "./notify.ts";

/*
 * What surrounds an apply for a compliance team: the freeze gate before anything is written, and,
 * once it ends, the audit record and the notification. The CLI and a library caller share it.
 */

export interface Governance {
  /** The gate `applyPlan` asks once the plan is derived. */
  gate(desired: DesiredState): Promise<void>;
  /** Records and tells how the apply ended; never throws. */
  ended(how: { outcome: ApplyOutcome } | { error: unknown }): Promise<void>;
}

export async function governApply(input: {
  dir: string;
  env: string;
  store?: ReleaseStore;
  say: (line: string) => void;
  action?: "apply" | "rollback";
  now?: () => Date;
}): Promise<Governance> {
  const { dir, env, say, action = "apply" } = input;
  const notify = await notifierFor(dir, say);
  const actor = actorOf();
  let desired: DesiredState | undefined;
  let freeze: FreezeDecision | undefined;
  return {
    async gate(given) {
      desired = given;
      if (action === "rollback") return;
      const now = input.now?.() ?? new Date();
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
      const refused =
        "error" in how && (how.error instanceof FrozenError || how.error instanceof ReleaseGateError);
      const entry = applyEntry({
        action,
        environment: env,
        ...(desired ? { desired } : {}),
        ...(freeze ? { freeze } : {}),
        ended: "error" in how ? { error: how.error, refused } : how,
      });
      await writeAudit(input.store, entry, say);
      const notice = applyNotice(env, desired?.release?.name, how);
      if (notice) await notify(notice);
    },
  };
}

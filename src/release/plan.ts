import {
  planEnvironment as composePlan,
  readEnvironment as composeRead,
  type EnvironmentPlan,
  type PlanContext,
  type PlanEnvironmentOptions,
} from "../compose/plan-environment.ts";
import { EgpError } from "../errors/index.ts";
import { type DesiredState, environmentOf, readRepository } from "../manifest/index.ts";
import type { RejectedRelease } from "../plan/index.ts";
import { reachedDigest } from "./reached.ts";
import { assertReleaseGate } from "./release-gate.ts";

/*
 * The composer's plan with the release gate in it: an environment that runs a rejected, unstored
 * or unverified release is refused before its live state is read. `egp plan` and every governed
 * entry point plan through these, so a preview refuses what the apply would. The read-only views
 * (`drift`, `status`) plan through `viewEnvironment`: a rejected release is a state there, not an
 * outage.
 */

const gated = (input: Omit<PlanEnvironmentOptions, "gate">): PlanEnvironmentOptions => ({
  ...input,
  gate: async (desired) => {
    await assertReleaseGate(input.dir, desired, input.store, reachOf(input));
    return undefined;
  },
});

/** The keyed digest of the instance `environments/<env>.yaml` reaches now (reached.ts). */
const reachOf = (input: Omit<PlanEnvironmentOptions, "gate">) => (env: string) => reachedNow(input, env);

async function reachedNow(input: Omit<PlanEnvironmentOptions, "gate">, env: string) {
  if (!input.store) return undefined;
  // The environment file alone: its manifests are not what names the instance.
  const { state } = environmentOf(await readRepository(input.dir, { manifests: false }), env);
  return reachedDigest(input.store, state.environment, input.open);
}

/** The plan of one environment (the composer's `planEnvironment`), its release gated. */
export function planEnvironment(input: Omit<PlanEnvironmentOptions, "gate">): Promise<EnvironmentPlan> {
  return composePlan(gated(input));
}

/** The desired and live state of one environment (the composer's `readEnvironment`), its release gated. */
export function readEnvironment(input: Omit<PlanEnvironmentOptions, "gate">): Promise<PlanContext> {
  return composeRead(gated(input));
}

/** The state without its release: what a view compares when the release is never to be installed. */
function withoutRelease(desired: DesiredState): DesiredState {
  const { release: _rejected, ...rest } = desired;
  return rest;
}

/**
 * The plan a read-only view reports (`drift`, `status`): gated as `planEnvironment`, except that a
 * rejected release leaves the release's packages out of the comparison and is said on the plan
 * (`rejectedRelease`), so that the other kinds are still reported, and a manifest key that matches
 * several live records is listed (`ambiguousKeys`) where a plan refuses it. Any other refusal stands.
 */
export async function viewEnvironment(input: Omit<PlanEnvironmentOptions, "gate">): Promise<EnvironmentPlan> {
  let rejected: RejectedRelease | undefined;
  const result = await composePlan({
    ...input,
    // A key matching several live records is a finding of the view, not a refusal of all of it.
    options: { ...input.options, ambiguousKeys: "report" },
    // A source or a kind that can't be read is said, not a failure: the other kinds are still compared.
    tolerant: true,
    gate: async (desired) => {
      try {
        await assertReleaseGate(input.dir, desired, input.store, reachOf(input));
        return undefined;
      } catch (error) {
        if (!(error instanceof EgpError) || error.code !== "EGP_RELEASE_REJECTED" || !desired.release)
          throw error;
        rejected = { release: desired.release.name, message: error.message };
        return withoutRelease(desired);
      }
    },
  });
  return rejected ? { ...result, plan: { ...result.plan, rejectedRelease: rejected } } : result;
}

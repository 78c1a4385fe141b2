import {
  planEnvironment as composePlan,
  readEnvironment as composeRead,
  type EnvironmentPlan,
  type PlanContext,
  type PlanEnvironmentOptions,
} from "../compose/plan-environment.ts";
import { environmentOf, readRepository } from "../manifest/index.ts";
import { reachedDigest } from "./reached.ts";
import { assertReleaseGate } from "./release-gate.ts";

/*
 * The composer's plan with the release gate in it: an environment that runs a rejected, unstored
 * or unverified release is refused before its live state is read. `egp plan`, `drift`, `status` and
 * every governed entry point plan through these, so a preview refuses what the apply would.
 */

const gated = (input: Omit<PlanEnvironmentOptions, "gate">): PlanEnvironmentOptions => ({
  ...input,
  gate: (desired) => assertReleaseGate(input.dir, desired, input.store, (env) => reachedNow(input, env)),
});

/** The keyed digest of the instance `environments/<env>.yaml` reaches now (reached.ts). */
async function reachedNow(input: Omit<PlanEnvironmentOptions, "gate">, env: string) {
  if (!input.store) return undefined;
  const repository = await readRepository(input.dir);
  // The environment file alone: its manifests are not what names the instance.
  const { state } = environmentOf({ ...repository, manifests: [] }, env);
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

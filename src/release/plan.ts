import {
  planEnvironment as composePlan,
  readEnvironment as composeRead,
  type EnvironmentPlan,
  type PlanContext,
  type PlanEnvironmentOptions,
} from "../compose/plan-environment.ts";
import { assertReleaseGate } from "./release-gate.ts";

/*
 * The composer's plan with the release gate in it: an environment that runs a rejected, unstored
 * or unverified release is refused before its live state is read. `egp plan`, `drift`, `status` and
 * every governed entry point plan through these, so a preview refuses what the apply would.
 */

const gated = (input: Omit<PlanEnvironmentOptions, "gate">): PlanEnvironmentOptions => ({
  ...input,
  gate: (desired) => assertReleaseGate(input.dir, desired, input.store),
});

/** The plan of one environment (the composer's `planEnvironment`), its release gated. */
export function planEnvironment(input: Omit<PlanEnvironmentOptions, "gate">): Promise<EnvironmentPlan> {
  return composePlan(gated(input));
}

/** The desired and live state of one environment (the composer's `readEnvironment`), its release gated. */
export function readEnvironment(input: Omit<PlanEnvironmentOptions, "gate">): Promise<PlanContext> {
  return composeRead(gated(input));
}

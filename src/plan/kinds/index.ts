import type { KindPlanner } from "./kind.ts";
import { packagePlanner } from "./package.ts";
import { recordPlanner } from "./record.ts";
import { securityParameterPlanner } from "./security-parameter.ts";
import { BUILT_IN_STEPS, type StepKinds } from "./steps.ts";
import { userPlanner } from "./user.ts";

/**
 * The planners of egp's own kinds: what `planChanges` plans with when it is given none. A kind from
 * outside egp brings its planner in the kinds value the caller passes (src/compose/kinds.ts).
 */
export const BUILT_IN_PLANNERS: readonly KindPlanner[] = Object.freeze([
  packagePlanner,
  securityParameterPlanner,
  userPlanner,
  recordPlanner,
]);

export { packagePlanner, recordPlanner, securityParameterPlanner, userPlanner };

/** What the planner plans with: each kind's planner, and every kind's step ops (their order, their names). */
export interface PlanKinds {
  readonly planners: readonly KindPlanner[];
  readonly steps: StepKinds;
}

/** egp's own kinds, as the planner sees them. */
export const BUILT_IN_PLAN_KINDS: PlanKinds = Object.freeze({
  planners: BUILT_IN_PLANNERS,
  steps: BUILT_IN_STEPS,
});

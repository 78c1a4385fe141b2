import type { KindPlanner } from "./kind.ts";
import { packagePlanner } from "./package.ts";
import { securityParameterPlanner } from "./security-parameter.ts";
import { CHANGE_KINDS } from "./steps.ts";
import { userPlanner } from "./user.ts";

/** Every kind the planner knows; a new kind is a new file and one line here. */
export const KIND_PLANNERS: readonly KindPlanner[] = [packagePlanner, securityParameterPlanner, userPlanner];

/**
 * Adds a kind's planner, for a kind outside this list (its steps registered first with
 * `registerKindSteps`, so that the plan file accepts what it plans).
 */
export function registerPlanner(planner: KindPlanner): void {
  if (!CHANGE_KINDS.includes(planner.kind))
    throw new TypeError(`register the step ops of ${planner.kind} before its planner`);
  if (KIND_PLANNERS.some((known) => known.kind === planner.kind))
    throw new TypeError(`a planner for ${planner.kind} is already registered`);
  (KIND_PLANNERS as KindPlanner[]).push(planner);
}

import type { KindPlanner } from "./kind.ts";
import { packagePlanner } from "./package.ts";
import { securityParameterPlanner } from "./security-parameter.ts";
import { userPlanner } from "./user.ts";

/** Every kind the planner knows; a new kind is a new file and one line here. */
export const KIND_PLANNERS: readonly KindPlanner[] = [packagePlanner, securityParameterPlanner, userPlanner];

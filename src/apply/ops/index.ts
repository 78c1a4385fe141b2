import type { BuiltInStepOp, StepOp } from "../../plan/index.ts";
import { packageOps, packageOpsOutlivingPlan } from "./package.ts";
import { securityParameterOps } from "./security-parameter.ts";
import type { OpHandler, OpRegistry } from "./types.ts";
import { userOps } from "./user.ts";

/** Every built-in step op and its handler (the compiler checks none is missing); a new kind's ops are a new file and one spread here. */
const BUILT_IN: Record<BuiltInStepOp, OpHandler> = { ...securityParameterOps, ...userOps, ...packageOps };

/** Handlers by op; grows as kinds are registered. */
export const OPS: OpRegistry = { ...BUILT_IN };

/**
 * Ops whose outputs are facts a live read does not show (a package made on the source, a file
 * downloaded, a package uploaded): a new plan that promotes the same content reuses them.
 */
export const OUTLIVE_PLAN: ReadonlySet<StepOp> = new Set(packageOpsOutlivingPlan);

/** Adds the handlers of a kind outside this list (its steps registered with `registerKindSteps`). */
export function registerOps(ops: OpRegistry): void {
  for (const op of Object.keys(ops)) {
    if (Object.hasOwn(OPS, op)) throw new TypeError(`a handler for ${op} is already registered`);
  }
  Object.assign(OPS, ops);
}

import type { StepOp } from "../../plan/index.ts";
import { packageOps, packageOpsOutlivingPlan } from "./package.ts";
import { securityParameterOps } from "./security-parameter.ts";
import type { OpRegistry } from "./types.ts";
import { userOps } from "./user.ts";

/** Every step op and its handler; a new kind's ops are a new file and one spread here. */
export const OPS: OpRegistry = { ...securityParameterOps, ...userOps, ...packageOps };

/**
 * Ops whose outputs are facts a live read does not show (a package made on the source, a file
 * downloaded, a package uploaded): a new plan that promotes the same content reuses them.
 */
export const OUTLIVE_PLAN: ReadonlySet<StepOp> = new Set(packageOpsOutlivingPlan);

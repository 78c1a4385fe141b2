import { BUILT_IN_STEPS, type BuiltInStepOp, type StepKinds } from "../../plan/index.ts";
import { type AnyLiveKind, BUILT_IN_LIVE_KINDS } from "../../state/index.ts";
import { packageOps, packageOpsOutlivingPlan } from "./package.ts";
import { recordOps } from "./record.ts";
import { securityParameterOps } from "./security-parameter.ts";
import type { OpHandler, OpRegistry } from "./types.ts";
import { userOps } from "./user.ts";

/**
 * Every built-in step op and its handler (the compiler checks none is missing). A kind from outside
 * egp brings its handlers in the kinds value the caller passes (src/compose/kinds.ts).
 */
export const BUILT_IN_OPS: Readonly<Record<BuiltInStepOp, OpHandler>> = Object.freeze({
  ...securityParameterOps,
  ...userOps,
  ...packageOps,
  ...recordOps,
});

/**
 * Built-in ops whose outputs are facts a live read does not show (a package made on the source, a
 * file downloaded, a package uploaded): a new plan that promotes the same content reuses them.
 */
export const BUILT_IN_OUTLIVE_PLAN: ReadonlySet<string> = new Set(packageOpsOutlivingPlan);

/** What an apply runs a plan with: the kinds' steps (to read and check plans), handlers and live reads. */
export interface ApplyKinds {
  readonly steps: StepKinds;
  /** Handlers by op; the executor refuses a plan with an op that has none before any step runs. */
  readonly ops: OpRegistry;
  /** Ops whose outputs a new plan of the same content reuses (`BUILT_IN_OUTLIVE_PLAN`). */
  readonly outlivePlan: ReadonlySet<string>;
  /** The live reads, whose labels name what changed in a stale plan's message. */
  readonly live: readonly Pick<AnyLiveKind, "part" | "label">[];
}

/** egp's own kinds, as an apply sees them: what it runs with when no kinds are given. */
export const BUILT_IN_APPLY_KINDS: ApplyKinds = Object.freeze({
  steps: BUILT_IN_STEPS,
  ops: BUILT_IN_OPS,
  outlivePlan: BUILT_IN_OUTLIVE_PLAN,
  live: BUILT_IN_LIVE_KINDS,
});

export { packageOps, packageOpsOutlivingPlan, recordOps, securityParameterOps, userOps };

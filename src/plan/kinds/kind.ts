import type { DesiredState } from "../../manifest/index.ts";
import type { LiveState } from "../../state/live-state.ts";
import type { Change, ChangeKind, Step, UnmanagedResource } from "../model.ts";

export interface PlanOptions {
  /** Prune what the manifests do not name even where the policy says `ignore` (auth0's AUTH0_ALLOW_DELETE). */
  allowDelete?: boolean;
  /** Send roles on every managed user, even when nothing else changed (roles can't be read back). */
  enforceRoles?: boolean;
}

export interface PlanInput {
  desired: DesiredState;
  live: LiveState;
  options: PlanOptions;
}

/**
 * A kind's steps may depend on other resources by id (`SecurityParameter/<name>`): the orderer
 * turns such a dependency into one on that resource's last step, when the plan changes it.
 */
export const RESOURCE_DEPENDENCY = "resource:";

export interface KindPlan {
  changes: Change[];
  steps: Step[];
  unmanaged: UnmanagedResource[];
}

export interface KindPlanner {
  kind: ChangeKind;
  /** Where the kind's steps start relative to others (lower first); deletes always come last. */
  order: number;
  /** Fields that are written but can't be read back: shown, never counted as drift. */
  unverifiable: readonly string[];
  plan(input: PlanInput): KindPlan;
}

/** A problem that makes a plan impossible, such as a package naming an application the source lacks. */
export class PlanError extends Error {
  readonly code = "EGP_PLAN_INVALID";
  constructor(message: string) {
    super(message);
    this.name = "PlanError";
  }
}

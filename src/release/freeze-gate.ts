import { EgpError } from "../errors/index.ts";
import { readFreezeExceptions } from "../manifest/freeze-exception.ts";
import type { EnvironmentConfig } from "../manifest/index.ts";
import { freezeEnd, type PlanFreeze } from "../plan/index.ts";
import { currentFreeze, describeWindow, type FreezeDecision, freezeDecision } from "./freeze.ts";

/*
 * Freeze windows are read from the environment file and exceptions from the repository at the
 * moment of the apply, not of the plan: a plan saved on Thursday is refused on Friday evening.
 */

export class FrozenError extends EgpError {
  readonly decision: Extract<FreezeDecision, { state: "frozen" }>;
  constructor(
    environment: string,
    decision: Extract<FreezeDecision, { state: "frozen" }>,
    freeze?: PlanFreeze,
  ) {
    const declined = decision.declined.length > 0 ? `; ${decision.declined.join("; ")}` : "";
    const until = freeze ? ` until ${freezeEnd(freeze)}` : "";
    super(
      "EGP_FROZEN",
      `${environment} is frozen${until}: ${describeWindow(decision.window)}${declined}; a freeze exception in freeze-exceptions/ lets named actors through`,
    );
    this.name = "FrozenError";
    this.decision = decision;
  }
}

export { actorIdentity, actorOf } from "./actor.ts";

export interface FreezeCheck {
  dir: string;
  environment: Pick<EnvironmentConfig, "name" | "freeze">;
  actor: string;
  now: Date;
}

/** Whether the environment is frozen now, and the exception that lets the actor through, if any. */
export async function freezeState(check: FreezeCheck): Promise<FreezeDecision> {
  const windows = check.environment.freeze ?? [];
  if (windows.length === 0) return { state: "open" };
  const exceptions = await readFreezeExceptions(check.dir);
  return freezeDecision(windows, exceptions, check.environment.name, check.actor, check.now);
}

/** Refuses an apply in a freeze window without an exception; what let it through otherwise. */
export async function assertNotFrozen(check: FreezeCheck): Promise<FreezeDecision> {
  const decision = await freezeState(check);
  if (decision.state === "frozen")
    throw new FrozenError(check.environment.name, decision, freezeOf(check.environment, check.now));
  return decision;
}

/**
 * The freeze in force on the environment at `now`, whoever asks (an exception is judged when the
 * apply runs): what a plan and `status` show; undefined when no window holds.
 */
export function freezeOf(environment: Pick<EnvironmentConfig, "freeze">, now: Date): PlanFreeze | undefined {
  return currentFreeze(environment.freeze ?? [], now);
}

/** The line `plan` prints when the environment is frozen now; undefined when it is open. */
export async function freezeNotice(check: FreezeCheck): Promise<string | undefined> {
  const decision = await freezeState(check);
  if (decision.state === "open") return undefined;
  const window = describeWindow(decision.window);
  if (decision.state === "excepted")
    return `Notice: ${check.environment.name} is frozen (${window}); ${decision.exception.file} lets ${check.actor} apply until ${decision.exception.until}.`;
  return `Notice: ${check.environment.name} is frozen (${window}); egp apply is refused (EGP_FROZEN) until it ends, unless a freeze exception lets the actor through. egp rollback is not frozen.`;
}

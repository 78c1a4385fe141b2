import type { z } from "zod";
import type { Step } from "../model.ts";
import { packageSteps } from "./package-steps.ts";
import { securityParameterSteps } from "./security-parameter-steps.ts";
import { userSteps } from "./user-steps.ts";

/**
 * Every step op and the schema of its input; a new kind's ops are a new file and one spread here.
 * The planner builds inputs of these types, the plan file is checked against them on load, and
 * each op in src/apply/ops reads its input through them.
 */
export const STEP_INPUTS = { ...securityParameterSteps, ...userSteps, ...packageSteps };

export type StepInputs = typeof STEP_INPUTS;
export type StepOp = keyof StepInputs;
/** What the planner writes for an op. */
export type StepInputIn<O extends StepOp> = z.input<StepInputs[O]>;
/** What the op reads. */
export type StepInputOf<O extends StepOp> = z.output<StepInputs[O]>;

export const STEP_OPS = Object.keys(STEP_INPUTS) as StepOp[];

/** A step of a change, its input typed by its op. */
export function makeStep<O extends StepOp>(
  change: { id: string },
  op: O,
  environment: string,
  input: StepInputIn<O>,
  dependsOn: string[] = [],
): Step {
  return { id: `${change.id}#${op.split(".")[1]}`, change: change.id, op, environment, dependsOn, input };
}

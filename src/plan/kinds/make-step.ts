import type { Step } from "../model.ts";
import type { StepInputIn, StepOp } from "./steps.ts";

/** A step of a change, its input typed by its op (a built-in op's; a plugin's op is checked by its own schema). */
export function makeStep<O extends StepOp>(
  change: { id: string },
  op: O,
  environment: string,
  input: StepInputIn<O> & Record<string, unknown>,
  dependsOn: string[] = [],
): Step {
  return { id: `${change.id}#${op.split(".")[1]}`, change: change.id, op, environment, dependsOn, input };
}

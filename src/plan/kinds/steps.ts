import type { z } from "zod";
import type { Step } from "../model.ts";
import { packageSteps } from "./package-steps.ts";
import { securityParameterSteps } from "./security-parameter-steps.ts";
import { userSteps } from "./user-steps.ts";

/**
 * Every kind with its step ops and the schema of each op's input; a new kind is a new file and one
 * entry here. The planner builds inputs of these types, the plan file is checked against them on
 * load, and each op in src/apply/ops reads its input through them.
 */
export const KIND_STEPS = [securityParameterSteps, userSteps, packageSteps] as const;

interface KindSteps {
  readonly kind: string;
  readonly ops: object;
}

/** The ops of every kind in one record: the intersection of each kind's `ops`. */
type AllOps<T extends readonly KindSteps[]> = T extends readonly [
  infer First extends KindSteps,
  ...infer Rest extends readonly KindSteps[],
]
  ? First["ops"] & AllOps<Rest>
  : unknown;

function allOps<T extends readonly KindSteps[]>(kinds: T): AllOps<T> {
  return Object.assign({}, ...kinds.map((kind) => kind.ops));
}

export const STEP_INPUTS = allOps(KIND_STEPS);

/** The kinds a plan can name (`Change.kind`). */
export type ChangeKind = (typeof KIND_STEPS)[number]["kind"];
export const CHANGE_KINDS: readonly ChangeKind[] = KIND_STEPS.map((kind) => kind.kind);

/** Which kind each op belongs to. */
export const KIND_OF_OP: Readonly<Record<string, ChangeKind>> = Object.fromEntries(
  KIND_STEPS.flatMap((kind) => Object.keys(kind.ops).map((op) => [op, kind.kind])),
);

export type StepInputs = typeof STEP_INPUTS;
export type StepOp = keyof StepInputs;
/** What the planner writes for an op. */
export type StepInputIn<O extends StepOp> = z.input<StepInputs[O]>;
/** What the op reads. */
export type StepInputOf<O extends StepOp> = z.output<StepInputs[O]>;

export const STEP_OPS: readonly StepOp[] = KIND_STEPS.flatMap((kind) => Object.keys(kind.ops) as StepOp[]);

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

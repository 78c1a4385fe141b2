import type { z } from "zod";
import type { ChangeAction } from "../actions.ts";
import { packageSteps } from "./package-steps.ts";
import { recordSteps } from "./record-steps.ts";
import { securityParameterSteps } from "./security-parameter-steps.ts";
import { userSteps } from "./user-steps.ts";

/**
 * egp's own kinds with their step ops, the schema of each op's input and the ops each action of
 * their changes runs. The planner builds inputs of these types, a plan file is checked against them
 * on load, a saved plan's steps are checked against the actions, and each op in src/apply/ops reads
 * its input through them. A kind from outside egp brings its own (`KindSteps`), in the kinds value
 * the caller passes (src/compose/kinds.ts); `stepKinds` derives the lookups from a list of them.
 */
const BUILT_IN = [securityParameterSteps, userSteps, packageSteps, recordSteps] as const;

/** A kind's name in plans and its step ops, each with the zod schema of its input. */
export interface KindSteps {
  readonly kind: string;
  readonly ops: Readonly<Record<string, z.ZodType>>;
  /**
   * The ops a change of each action may run (`update: ["user.update", "user.activate"]`); the
   * kind's changes take no other action, and a saved plan with any other step is refused.
   */
  readonly actions: { readonly [A in ChangeAction]?: readonly string[] };
  /**
   * Ops that only fetch and check what the apply needs (a release's package file): every other
   * step of a plan waits for them, so that bytes that fail their check leave the target untouched.
   */
  readonly first?: readonly string[];
}

/** The ops of every built-in kind in one record: the intersection of each kind's `ops`. */
type AllOps<T extends readonly KindSteps[]> = T extends readonly [
  infer First extends KindSteps,
  ...infer Rest extends readonly KindSteps[],
]
  ? First["ops"] & AllOps<Rest>
  : unknown;

/** The built-in ops' input schemas, by op. */
export type StepInputs = AllOps<typeof BUILT_IN>;
/** An op of egp's own kinds (each must have a handler in src/apply/ops). */
export type BuiltInStepOp = keyof StepInputs & string;
/** An op a plan may name: a built-in one, or one a kind from outside egp declares. */
export type StepOp = BuiltInStepOp | (string & {});
/** The name of one of egp's own kinds in plans. */
export type BuiltInChangeKind = (typeof BUILT_IN)[number]["kind"];
/** The kinds a plan can name (`Change.kind`): egp's own, or a kind from outside egp (any name). */
export type ChangeKind = BuiltInChangeKind | (string & {});
/** What the planner writes for an op: typed for a built-in op; a plugin's op is checked by its own schema. */
export type StepInputIn<O extends string> = O extends BuiltInStepOp
  ? z.input<StepInputs[O]>
  : Record<string, unknown>;
/** What the op reads. */
export type StepInputOf<O extends string> = O extends BuiltInStepOp ? z.output<StepInputs[O]> : unknown;

/** The input schemas of egp's own ops, by op (what `inputOf` reads a built-in step's input by). */
export const BUILT_IN_STEP_INPUTS: StepInputs = Object.freeze(
  Object.assign({}, ...BUILT_IN.map((kind) => kind.ops)),
);

/** The mistakes of a declaration: no actions, an action naming an op the kind lacks, an op no action runs. */
function declarationProblems(steps: KindSteps): string[] {
  const ops = Object.keys(steps.ops ?? {});
  const actions = Object.entries(steps.actions ?? {}) as [string, readonly string[]][];
  if (actions.length === 0)
    return [
      `declares no actions (say which ops each action runs: actions: { update: ["${ops[0] ?? "op"}"] })`,
    ];
  const run = new Set(actions.flatMap(([, named]) => named));
  return [
    ...actions.flatMap(([action, named]) =>
      named
        .filter((op) => !ops.includes(op))
        .map((op) => `action ${action} runs ${op}, which is not one of its ops`),
    ),
    ...ops.filter((op) => !run.has(op)).map((op) => `no action runs its op ${op}`),
    ...(steps.first ?? [])
      .filter((op) => !ops.includes(op))
      .map((op) => `first names ${op}, not one of its ops`),
  ];
}

/**
 * The step ops of a set of kinds, and what the planner, the plan file and the executor look up in
 * them. Made by `stepKinds` from a list; nothing is added to it afterwards.
 */
export interface StepKinds {
  /** The kinds a plan can name, in the list's order. */
  readonly kinds: readonly string[];
  /** Every op, in the list's order. */
  readonly ops: readonly string[];
  /** The ops every other step of a plan waits for (`KindSteps.first`). */
  readonly first: ReadonlySet<string>;
  /** The kind an op belongs to; undefined for an op none of these kinds declares. */
  kindOfOp(op: string): string | undefined;
  /** The ops a change of `kind` with `action` may run, as the kind declares them; none for an unknown kind. */
  opsOf(kind: string, action: ChangeAction): readonly string[];
  /** The input schema of an op; undefined for an op none of these kinds declares. */
  inputSchema(op: string): z.ZodType | undefined;
}

/**
 * The lookups of a list of kinds' steps. A declaration that does not hold together, or a kind or
 * an op declared twice, is a programming error of whoever made the list.
 */
export function stepKinds(list: readonly KindSteps[]): StepKinds {
  const byKind = new Map<string, KindSteps>();
  const kindOf = new Map<string, string>();
  const schemas = new Map<string, z.ZodType>();
  for (const steps of list) {
    const [problem] = declarationProblems(steps);
    if (problem) throw new TypeError(`kind ${steps.kind} ${problem}`);
    if (byKind.has(steps.kind)) throw new TypeError(`kind ${steps.kind} is listed twice`);
    byKind.set(steps.kind, steps);
    for (const [op, schema] of Object.entries(steps.ops)) {
      const other = kindOf.get(op);
      if (other) throw new TypeError(`step op ${op} of ${steps.kind} is also an op of ${other}`);
      kindOf.set(op, steps.kind);
      schemas.set(op, schema);
    }
  }
  return Object.freeze({
    kinds: Object.freeze([...byKind.keys()]),
    ops: Object.freeze([...kindOf.keys()]),
    first: new Set(list.flatMap((steps) => steps.first ?? [])),
    kindOfOp: (op: string) => kindOf.get(op),
    opsOf: (kind: string, action: ChangeAction) => byKind.get(kind)?.actions[action] ?? [],
    inputSchema: (op: string) => schemas.get(op),
  });
}

/** The step ops of egp's own kinds: what a plan is read and ordered with when no kinds are given. */
export const BUILT_IN_STEPS: StepKinds = stepKinds(BUILT_IN);

/** The built-in kinds' steps, each as declared (src/compose/kinds.ts bundles them). */
export { packageSteps, recordSteps, securityParameterSteps, userSteps };

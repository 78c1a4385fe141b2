import type { z } from "zod";
import type { ChangeAction } from "../actions.ts";
import { packageSteps } from "./package-steps.ts";
import { securityParameterSteps } from "./security-parameter-steps.ts";
import { userSteps } from "./user-steps.ts";

/**
 * Every kind with its step ops, the schema of each op's input and the ops each action of its
 * changes runs; a new kind is a new file and one entry here. The planner builds inputs of these
 * types, the plan file is checked against them on load, a saved plan's steps are checked against
 * the actions, and each op in src/apply/ops reads its input through them.
 */
const BUILT_IN = [securityParameterSteps, userSteps, packageSteps] as const;

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

/**
 * Kinds registered from outside this list (`registerKindSteps`): a module that registers one adds
 * its name to the first interface and its ops to the second, so that the types below include them:
 * ```
 * type WidgetOps = typeof widgetSteps.ops;
 * declare module ".../plan/kinds/steps.ts" {
 *   interface RegisteredKindSteps { Widget: typeof widgetSteps }
 *   interface RegisteredStepInputs extends WidgetOps {}
 * }
 * ```
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging, as above.
export interface RegisteredKindSteps {}
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging, as above.
export interface RegisteredStepInputs {}

/** The ops of every kind in one record: the intersection of each kind's `ops`. */
type AllOps<T extends readonly KindSteps[]> = T extends readonly [
  infer First extends KindSteps,
  ...infer Rest extends readonly KindSteps[],
]
  ? First["ops"] & AllOps<Rest>
  : unknown;

export type StepInputs = AllOps<typeof BUILT_IN> & RegisteredStepInputs;
export type StepOp = keyof StepInputs & string;
/** The ops of the kinds in this file's list (each must have a handler in src/apply/ops). */
export type BuiltInStepOp = keyof AllOps<typeof BUILT_IN> & string;
/** The kinds a plan can name (`Change.kind`). */
export type ChangeKind = (typeof BUILT_IN)[number]["kind"] | (keyof RegisteredKindSteps & string);
/** What the planner writes for an op. */
export type StepInputIn<O extends StepOp> = z.input<StepInputs[O]>;
/** What the op reads. */
export type StepInputOf<O extends StepOp> = z.output<StepInputs[O]>;

/** The mistakes of a declaration: no actions, an action naming an op the kind lacks, an op no action runs. */
function declarationProblems(steps: KindSteps): string[] {
  const ops = Object.keys(steps.ops);
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
  ];
}

function assertDeclared(steps: KindSteps): void {
  const [problem] = declarationProblems(steps);
  if (problem) throw new TypeError(`kind ${steps.kind} ${problem}`);
}

for (const steps of BUILT_IN) assertDeclared(steps);

const kinds: KindSteps[] = [...BUILT_IN];

/** Every op's input schema, by op; grows as kinds are registered. */
export const STEP_INPUTS = Object.assign({}, ...BUILT_IN.map((kind) => kind.ops)) as StepInputs;
/** The kinds a plan can name, and every op, in registry order. */
export const CHANGE_KINDS: readonly ChangeKind[] = kinds.map((kind) => kind.kind as ChangeKind);
export const STEP_OPS: readonly StepOp[] = kinds.flatMap((kind) => Object.keys(kind.ops) as StepOp[]);
/** The ops every other step of a plan waits for (`KindSteps.first`). */
export const FIRST_OPS: ReadonlySet<string> = new Set(kinds.flatMap((kind) => kind.first ?? []));
/** Which kind each op belongs to. */
export const KIND_OF_OP: Readonly<Record<string, ChangeKind>> = Object.fromEntries(
  kinds.flatMap((kind) => Object.keys(kind.ops).map((op) => [op, kind.kind as ChangeKind])),
);

/**
 * Adds a kind's step ops to the registry: plans may then name the kind and its ops, and plan files
 * holding them are checked against its schemas. A kind or op registered twice is a programming error.
 */
export function registerKindSteps(steps: KindSteps): void {
  assertDeclared(steps);
  if (kinds.some((kind) => kind.kind === steps.kind))
    throw new TypeError(`kind ${steps.kind} is already registered`);
  for (const op of Object.keys(steps.ops)) {
    if (op in KIND_OF_OP) throw new TypeError(`step op ${op} is already registered`);
  }
  kinds.push(steps);
  Object.assign(STEP_INPUTS as object, steps.ops);
  (CHANGE_KINDS as string[]).push(steps.kind);
  (STEP_OPS as string[]).push(...Object.keys(steps.ops));
  for (const op of steps.first ?? []) (FIRST_OPS as Set<string>).add(op);
  for (const op of Object.keys(steps.ops)) (KIND_OF_OP as Record<string, string>)[op] = steps.kind;
}

/** The ops a change of `kind` with `action` may run, as the kind declares them; none for an unknown kind. */
export function opsOf(kind: string, action: ChangeAction): readonly string[] {
  return kinds.find((known) => known.kind === kind)?.actions[action] ?? [];
}

/** The input schema of an op, or undefined for an op no kind registered. */
export function stepInputSchema(op: string): z.ZodType | undefined {
  return kinds.find((kind) => Object.hasOwn(kind.ops, op))?.ops[op];
}

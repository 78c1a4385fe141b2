import type { Logger } from "pino";
import type { ZodType, z } from "zod";
import type { PlatformClient } from "../../client/client.ts";
import type { DesiredState } from "../../manifest/index.ts";
import type { VerifySettings } from "../../manifest/verify-settings.ts";
import { BUILT_IN_STEP_INPUTS, type BuiltInStepOp, type Step, type StepInputOf } from "../../plan/index.ts";
import type { SharedReads } from "../../state/index.ts";
import type { ReleaseStore } from "../../store/index.ts";
import { ApplyError } from "../errors.ts";

export interface Progress {
  step: string;
  message: string;
  bytes?: number;
  total?: number;
}

/** What a step's handler gets: its client, the manifests (for secrets), and what earlier steps produced. */
export interface OpContext {
  step: Step;
  /** The plan that first started this step: this one, or a superseded one it was carried over from. */
  planId: string;
  client: PlatformClient;
  desired: DesiredState;
  /** The client of another step of the plan (a promotion's download feeds its upload), by step id. */
  clientOfStep(stepId: string): PlatformClient | undefined;
  /** The environment of another step of the plan, by step id, for messages. */
  environmentOfStep?(stepId: string): string | undefined;
  /** Outputs of earlier steps of the same plan, by step id. */
  outputOf(stepId: string): Record<string, unknown> | undefined;
  /** The plan was made with --allow-delete: deletes need no prune policy. */
  allowDelete: boolean;
  /** True when a previous run started this step and never recorded its end. */
  resumed: boolean;
  /** `.egp` of the repository. */
  stateDir: string;
  /** The journal's run: the plan applied again after it completed is another run. */
  run: string;
  /** Where install history, snapshots and verifications go, so that any machine finds them. */
  store?: ReleaseStore;
  logger: Logger;
  progress(message: string, bytes?: number, total?: number): void;
  sleep(ms: number): Promise<void>;
  /**
   * A read shared by the steps of one environment in a run (a kind's list, say): made once, kept,
   * and made again when `refresh` is set (after a step changed what it reads). A failed read is not kept.
   */
  shared<T>(name: string, read: () => Promise<T>, refresh?: boolean): Promise<T>;
  /**
   * The run's reads of instances' catalogues and metadata trees (state/shared-reads.ts): the plan's,
   * until a step that may change them forgets them; then a check's, which the final plan takes.
   */
  reads: SharedReads;
  timeouts: { jobMs: number; verifyMs: number; pollMs: number };
  /** How the step's environment verifies an install (stable reads, re-installs); defaults where absent. */
  verify?: VerifySettings;
  /** Another step of the plan, by id: a verify's re-install asks for what its install asked. */
  stepOf?(stepId: string): Step | undefined;
}

export type OpHandler = (context: OpContext) => Promise<Record<string, unknown>>;

/** Handlers by op; the executor refuses a plan with an op that has none before any step runs. */
export type OpRegistry = { readonly [op: string]: OpHandler | undefined };

/** The built-in schemas seen per op, so that indexing them with a generic op keeps the op's type. */
const SCHEMAS: { [O in BuiltInStepOp]: ZodType<StepInputOf<O>> } = BUILT_IN_STEP_INPUTS;

/**
 * The step's input, read through its op's schema (the one the planner wrote it by): a built-in op's
 * own, or the one a plugin kind's handler passes (its `KindSteps.ops[op]`). A plan file is checked
 * on load, so this fails only for a step whose op is not the one asked for.
 */
export function inputOf<O extends BuiltInStepOp>(context: OpContext, op: O): StepInputOf<O>;
export function inputOf<S extends ZodType>(context: OpContext, op: string, schema: S): z.output<S>;
export function inputOf(context: OpContext, op: string, schema?: ZodType): unknown {
  const { step } = context;
  const parsed = step.op === op ? (schema ?? schemaOf(op)).safeParse(step.input) : undefined;
  if (!parsed?.success) {
    const issue = parsed?.error.issues[0];
    const why = issue ? `${issue.path.join(".") || "input"}: ${issue.message}` : `it is a ${step.op} step`;
    throw new ApplyError("EGP_STEP_INPUT_MISSING", `${step.id}: not a usable ${op} input (${why})`);
  }
  return parsed.data;
}

function schemaOf(op: string): ZodType {
  const schema = Object.hasOwn(SCHEMAS, op) ? SCHEMAS[op as BuiltInStepOp] : undefined;
  if (!schema) throw new TypeError(`${op} is not an op of egp's own kinds: pass its input schema to inputOf`);
  return schema;
}

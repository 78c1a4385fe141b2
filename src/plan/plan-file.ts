import { createHmac, randomBytes } from "node:crypto";
import { z } from "zod";
import { EgpError } from "../errors/index.ts";
import { CHANGE_ACTIONS } from "./actions.ts";
import { CHANGE_KINDS, type ChangeKind, STEP_OPS, type StepOp, stepInputSchema } from "./kinds/steps.ts";
import { PLAN_FORMAT_VERSION, type Plan } from "./model.ts";
import { PART_TYPES, type PartDifference } from "./package-diff.ts";
import { renderJson } from "./render/json.ts";

const Location = z.object({ file: z.string(), line: z.number(), column: z.number() });

const Severity = z.enum(["critical", "normal"]);
const PartValue = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.string())]);

/** A package object's differing part (package-diff.ts); optional, so plans saved before it load. */
const Part: z.ZodType<PartDifference> = z.object({
  part: z.enum(PART_TYPES),
  guid: z.string(),
  name: z.string(),
  parent: z.string().optional(),
  status: z.enum(["added", "changed", "onlyOnTarget"]),
  severity: Severity,
  properties: z
    .array(
      z.object({
        property: z.string(),
        before: PartValue.optional(),
        after: PartValue.optional(),
        severity: Severity,
      }),
    )
    .optional(),
  keptByInstall: z.boolean().optional(),
});

/**
 * A step's input must be what its op reads (src/plan/kinds/steps.ts), so that a damaged plan file
 * is refused here, before apply, and not by the op halfway through. The input is kept as written.
 */
function checkInput(step: { id: string; op: StepOp; input: unknown }, context: z.RefinementCtx): void {
  const parsed = stepInputSchema(step.op)?.safeParse(step.input);
  for (const issue of parsed?.error?.issues ?? []) {
    context.addIssue({
      code: "custom",
      path: ["input", ...issue.path],
      message: `step ${step.id} (${step.op}): ${issue.message}`,
    });
  }
}

/**
 * One of a registry's names, read when a file is checked (not when this module loads), so that a
 * kind registered later is accepted; the message lists what is.
 */
function oneOf<T extends string>(names: readonly T[]) {
  return z.custom<T>((value) => typeof value === "string" && names.includes(value as T), {
    error: () => `expected one of ${names.map((name) => JSON.stringify(name)).join(", ")}`,
  });
}

const PlanFile = z.object({
  formatVersion: z.literal(PLAN_FORMAT_VERSION),
  id: z.string(),
  environment: z.string(),
  sourceEnvironment: z.string().optional(),
  createdAt: z.string(),
  digests: z.object({ manifests: z.string(), live: z.string(), liveParts: z.record(z.string(), z.string()) }),
  options: z.object({
    allowDelete: z.boolean(),
    enforceRoles: z.boolean(),
    targets: z.array(z.string()).min(1).optional(),
    manifests: z.array(z.string()).min(1).optional(),
  }),
  partial: z.object({ targeted: z.number(), of: z.number() }).optional(),
  changes: z.array(
    z.object({
      id: z.string(),
      kind: oneOf<ChangeKind>(CHANGE_KINDS),
      key: z.string(),
      action: z.enum(CHANGE_ACTIONS),
      fields: z.array(
        z.object({
          field: z.string(),
          before: z.unknown().optional(),
          after: z.unknown().optional(),
          verifiable: z.boolean(),
          sensitive: z.array(z.string()).optional(),
          parts: z.array(Part).optional(),
          dependencyOf: z.object({ object: z.string(), field: z.string() }).optional(),
        }),
      ),
      notes: z.array(z.string()),
      destructive: z.boolean(),
      source: Location.optional(),
    }),
  ),
  steps: z.array(
    z
      .object({
        id: z.string(),
        change: z.string(),
        op: oneOf<StepOp>(STEP_OPS),
        environment: z.string(),
        dependsOn: z.array(z.string()),
        input: z.record(z.string(), z.unknown()),
      })
      .superRefine(checkInput),
  ),
  unmanaged: z.array(z.object({ kind: oneOf<ChangeKind>(CHANGE_KINDS), key: z.string() })),
  // Absent in plan files written before exclusions existed.
  excluded: z.array(z.object({ kind: oneOf<ChangeKind>(CHANGE_KINDS), key: z.string() })).default([]),
  notRead: z.array(z.string()).optional(),
  summary: z.object({
    add: z.number(),
    change: z.number(),
    destroy: z.number(),
    promote: z.number(),
    drift: z.number(),
  }),
  sensitive: z
    .array(
      z.object({
        step: z.string(),
        path: z.array(z.union([z.string(), z.number()])),
        reference: z.string(),
        digest: z.string().optional(),
      }),
    )
    .optional(),
  sealing: z.object({ salt: z.string(), keyed: z.boolean() }).optional(),
});

/** A plan file that can't be read: not JSON, another format version, or a damaged plan. */
export class PlanFileError extends EgpError {
  constructor(file: string, reason: string) {
    super("EGP_PLAN_FILE_INVALID", `${file}: not a usable plan file (${reason})`);
    this.name = "PlanFileError";
  }
}

/**
 * The digest a plan file keeps of a sensitive value: HMAC-SHA256 keyed by the plan's random salt and
 * EGP_PLAN_KEY when set (docs/plan-format.md, "Sensitive values"), so that equal values in two
 * plans don't look equal and, with the key, a guess can't be checked against the file.
 */
export function sealedDigest(value: string, salt: string, key: string | undefined): string {
  return `hmac-sha256:${createHmac("sha256", `${salt}\u0000${key ?? ""}`)
    .update(value)
    .digest("hex")}`;
}

/**
 * The plan as a file. Sensitive values are never in it (they are `SealedValue`s, which JSON leaves
 * out); each gets its keyed digest, so that apply can refuse the plan once a value changed. A plan
 * read from a file keeps the digests it has.
 */
export function writePlanFile(plan: Plan, options: { key?: string } = {}): string {
  if (!plan.sensitive?.some((entry) => entry.digest === undefined)) return renderJson(plan);
  const sealing = plan.sealing ?? { salt: randomBytes(16).toString("hex"), keyed: Boolean(options.key) };
  const key = sealing.keyed ? options.key : undefined;
  const sensitive = plan.sensitive.map((entry) =>
    entry.digest !== undefined || !entry.value
      ? entry
      : { ...entry, digest: sealedDigest(entry.value.reveal(), sealing.salt, key) },
  );
  return renderJson({ ...plan, sensitive, sealing });
}

export function readPlanFile(text: string, file = "plan file"): Plan {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new PlanFileError(file, "it is not JSON");
  }
  const version = (json as { formatVersion?: unknown } | null)?.formatVersion;
  if (version !== PLAN_FORMAT_VERSION) {
    throw new PlanFileError(
      file,
      `format version ${String(version)}; this egp reads version ${PLAN_FORMAT_VERSION}`,
    );
  }
  const parsed = PlanFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new PlanFileError(file, `${issue?.path.join(".") || "plan"}: ${issue?.message}`);
  }
  return parsed.data as Plan;
}

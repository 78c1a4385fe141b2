import { createHmac, randomBytes } from "node:crypto";
import { z } from "zod";
import { EgpError } from "../errors/index.ts";
import { CHANGE_ACTIONS } from "./actions.ts";
import { BUILT_IN_STEPS, type ChangeKind, type StepKinds, type StepOp } from "./kinds/steps.ts";
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
function inputChecker(steps: StepKinds) {
  return (step: { id: string; op: StepOp; input: unknown }, context: z.RefinementCtx): void => {
    const parsed = steps.inputSchema(step.op)?.safeParse(step.input);
    for (const issue of parsed?.error?.issues ?? []) {
      context.addIssue({
        code: "custom",
        path: ["input", ...issue.path],
        message: `step ${step.id} (${step.op}): ${issue.message}`,
      });
    }
  };
}

/** One of the kinds' names; the message lists them. */
function oneOf<T extends string>(names: readonly T[]) {
  return z.custom<T>((value) => typeof value === "string" && names.includes(value as T), {
    error: () => `expected one of ${names.map((name) => JSON.stringify(name)).join(", ")}`,
  });
}

/** The plan file's schema for the kinds a process has: their names, their ops, their inputs. */
const planFileSchema = (steps: StepKinds) =>
  z.object({
    formatVersion: z.literal(PLAN_FORMAT_VERSION),
    id: z.string(),
    environment: z.string(),
    sourceEnvironment: z.string().optional(),
    createdAt: z.string(),
    digests: z.object({
      manifests: z.string(),
      live: z.string(),
      liveParts: z.record(z.string(), z.string()),
    }),
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
        kind: oneOf<ChangeKind>(steps.kinds),
        key: z.string(),
        label: z.string().optional(),
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
          op: oneOf<StepOp>(steps.ops),
          environment: z.string(),
          dependsOn: z.array(z.string()),
          input: z.record(z.string(), z.unknown()),
        })
        .superRefine(inputChecker(steps)),
    ),
    unmanaged: z.array(z.object({ kind: oneOf<ChangeKind>(steps.kinds), key: z.string() })),
    // Absent in plan files written before exclusions existed.
    excluded: z.array(z.object({ kind: oneOf<ChangeKind>(steps.kinds), key: z.string() })).default([]),
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
    // Absent in plan files written before plans carried a freeze.
    freeze: z
      .object({ until: z.string(), zone: z.string(), untilInstant: z.string(), reason: z.string() })
      .optional(),
    rejectedRelease: z.object({ release: z.string(), message: z.string() }).optional(),
  });

/** Made once per kinds value: a plan file is read against the kinds of the process reading it. */
const schemas = new WeakMap<StepKinds, ReturnType<typeof planFileSchema>>();

function schemaFor(steps: StepKinds): ReturnType<typeof planFileSchema> {
  let schema = schemas.get(steps);
  if (!schema) {
    schema = planFileSchema(steps);
    schemas.set(steps, schema);
  }
  return schema;
}

/** A plan file that can't be read: not JSON, another format version, or a damaged plan. */
export class PlanFileError extends EgpError {
  /** `code`: EGP_PLAN_UNKNOWN_KIND when the file names a kind the reading process does not have. */
  constructor(
    file: string,
    reason: string,
    code: "EGP_PLAN_FILE_INVALID" | "EGP_PLAN_UNKNOWN_KIND" = "EGP_PLAN_FILE_INVALID",
  ) {
    super(code, `${file}: not a usable plan file (${reason})`);
    this.name = "PlanFileError";
  }
}

/** The kinds a plan file's changes, unmanaged and excluded objects name, as written. */
function kindsNamed(json: unknown): string[] {
  const plan = json as Partial<Record<"changes" | "unmanaged" | "excluded", unknown>>;
  const lists = [plan.changes, plan.unmanaged, plan.excluded].filter(Array.isArray) as unknown[][];
  const kinds = lists.flat().map((item) => (item as { kind?: unknown } | null)?.kind);
  return [...new Set(kinds.filter((kind): kind is string => typeof kind === "string"))];
}

/**
 * A plan of a kind this process lacks (a plugin kind the planning process had and this one was not
 * given) is refused by name: its steps could be neither checked nor run.
 */
function refuseUnknownKinds(json: unknown, file: string, steps: StepKinds): void {
  const unknown = kindsNamed(json).filter((kind) => !steps.kinds.includes(kind));
  if (unknown.length === 0) return;
  const named = unknown.map((kind) => JSON.stringify(kind)).join(", ");
  throw new PlanFileError(
    file,
    `it names the kind ${named}, which this process does not have (its kinds: ${steps.kinds.join(", ")}); apply it with the kinds it was planned with`,
    "EGP_PLAN_UNKNOWN_KIND",
  );
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

/**
 * A plan file read and checked against `steps`, the step ops of the kinds of the process reading it
 * (egp's own by default; a kinds value's `steps` with plugins).
 */
export function readPlanFile(text: string, file = "plan file", steps: StepKinds = BUILT_IN_STEPS): Plan {
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
  refuseUnknownKinds(json, file, steps);
  const parsed = schemaFor(steps).safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new PlanFileError(file, `${issue?.path.join(".") || "plan"}: ${issue?.message}`);
  }
  return parsed.data as Plan;
}

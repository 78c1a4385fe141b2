import { createHash } from "node:crypto";
import { KIND_PLANNERS } from "./kinds/index.ts";
import {
  type KindPlanner,
  PlanError,
  type PlanInput,
  type PlanOptions,
  type PlanProblem,
} from "./kinds/kind.ts";
import { type Change, PLAN_FORMAT_VERSION, type Plan, type PlanSummary } from "./model.ts";
import { orderSteps } from "./order.ts";

/** A change counts as drift when something readable differs; role enforcement alone does not. */
export function countsAsDrift(change: Change): boolean {
  if (change.action !== "update") return true;
  return change.fields.some((field) => field.verifiable);
}

/**
 * What the platform would refuse of the plan for desired + live, checked offline (docs/manifests.md,
 * "Checked before any write"), in file order; empty when nothing. `planChanges` refuses to plan
 * when this is not empty.
 */
export function planRefusals(
  desired: PlanInput["desired"],
  live: PlanInput["live"],
  planners: readonly KindPlanner[] = KIND_PLANNERS,
): PlanProblem[] {
  const input: PlanInput = { desired, live, options: {} };
  const problems = planners.flatMap((planner) => planner.refusals?.(input) ?? []);
  return problems.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
}

export function summarize(changes: readonly Change[]): PlanSummary {
  const count = (...actions: Change["action"][]) => changes.filter((c) => actions.includes(c.action)).length;
  return {
    add: count("create"),
    change: count("update", "deactivate", "rollback"),
    destroy: count("delete"),
    promote: count("promote"),
    drift: changes.filter(countsAsDrift).length,
  };
}

/**
 * Desired + live → plan. Pure and synchronous: the same inputs give the same plan (the caller
 * passes the time the plan was made). Throws a `PlanError` listing every problem at its manifest
 * position when the platform would refuse part of the plan, so that no plan, and no apply, is made
 * of it.
 */
export function planChanges(
  desired: PlanInput["desired"],
  live: PlanInput["live"],
  options: PlanOptions & { createdAt: string },
  planners: readonly KindPlanner[] = KIND_PLANNERS,
): Plan {
  const input: PlanInput = { desired, live, options };
  const problems = planRefusals(desired, live, planners);
  if (problems.length > 0) throw PlanError.refused(problems);
  const sorted = [...planners].sort((a, b) => a.order - b.order);
  const parts = sorted.map((planner) => planner.plan(input));
  const changes = parts.flatMap((part) => part.changes);
  const steps = orderSteps(
    changes,
    parts.flatMap((part) => part.steps),
  );
  const allowDelete = options.allowDelete ?? false;
  const id = createHash("sha256")
    .update(
      JSON.stringify([
        desired.environment.name,
        desired.digest,
        live.digest,
        allowDelete,
        options.enforceRoles ?? false,
      ]),
    )
    .digest("hex")
    .slice(0, 16);
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    id,
    environment: desired.environment.name,
    ...(steps.some((s) => s.environment !== desired.environment.name) && desired.packagesFrom
      ? { sourceEnvironment: desired.packagesFrom.name }
      : {}),
    createdAt: options.createdAt,
    digests: { manifests: desired.digest, live: live.digest, liveParts: live.partDigests },
    options: { allowDelete, enforceRoles: options.enforceRoles ?? false },
    changes,
    steps,
    unmanaged: parts.flatMap((part) => part.unmanaged),
    summary: summarize(changes),
  };
}

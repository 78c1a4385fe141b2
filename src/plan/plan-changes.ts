import { createHash } from "node:crypto";
import { KIND_PLANNERS } from "./kinds/index.ts";
import type { KindPlanner, PlanInput, PlanOptions } from "./kinds/kind.ts";
import { type Change, PLAN_FORMAT_VERSION, type Plan, type PlanSummary } from "./model.ts";
import { orderSteps } from "./order.ts";

/** A change counts as drift when something readable differs; role enforcement alone does not. */
export function countsAsDrift(change: Change): boolean {
  if (change.action !== "update") return true;
  return change.fields.some((field) => field.verifiable);
}

export function summarize(changes: readonly Change[]): PlanSummary {
  const count = (...actions: Change["action"][]) => changes.filter((c) => actions.includes(c.action)).length;
  return {
    add: count("create"),
    change: count("update", "deactivate"),
    destroy: count("delete"),
    promote: count("promote"),
    drift: changes.filter(countsAsDrift).length,
  };
}

/**
 * Desired + live → plan. Pure and synchronous: the same inputs give the same plan (the caller
 * passes the time the plan was made).
 */
export function planChanges(
  desired: PlanInput["desired"],
  live: PlanInput["live"],
  options: PlanOptions & { createdAt: string },
  planners: readonly KindPlanner[] = KIND_PLANNERS,
): Plan {
  const input: PlanInput = { desired, live, options };
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

import { createHash } from "node:crypto";
import { canonicalJson } from "./compare.ts";
import { BUILT_IN_PLAN_KINDS, BUILT_IN_PLANNERS, type PlanKinds } from "./kinds/index.ts";
import {
  type KindPlan,
  type KindPlanner,
  PlanError,
  type PlanInput,
  type PlannedState,
  type PlanOptions,
  type PlanProblem,
  RESOURCE_DEPENDENCY,
} from "./kinds/kind.ts";
import { type Change, PLAN_FORMAT_VERSION, type Plan, type PlanSummary, type Step } from "./model.ts";
import { orderSteps } from "./order.ts";
import { packageSideDigests } from "./package-sides.ts";
import { sealSensitive, withReferences } from "./sensitive.ts";
import { narrowDesired, parseTargets, selects, type Target, targetText } from "./targets.ts";

/** A change counts as drift when something readable differs; role enforcement alone does not. */
export function countsAsDrift(change: Change): boolean {
  if (change.action !== "update") return true;
  return change.fields.some((field) => field.verifiable);
}

/** The planners' input: what each kind's plan leaves is worked out first, for the kinds that read it. */
function planInput(
  desired: PlanInput["desired"],
  live: PlanInput["live"],
  options: PlanOptions,
  planners: readonly KindPlanner[],
): PlanInput {
  const planned: PlannedState = {};
  for (const planner of planners) Object.assign(planned, planner.leaves?.({ desired, live }));
  return { desired, live, options, planned };
}

/**
 * What the platform would refuse of the plan for desired + live, checked offline (docs/manifests.md,
 * "Checked before any write"), in file order; empty when nothing. `planChanges` refuses to plan
 * when this is not empty.
 */
export function planRefusals(
  desired: PlanInput["desired"],
  live: PlanInput["live"],
  planners: readonly KindPlanner[] = BUILT_IN_PLANNERS,
  targets: readonly Target[] = [],
): PlanProblem[] {
  const input = planInput(narrowDesired(desired, targets, planners), live, {}, planners);
  const problems = planners
    .flatMap((planner) => planner.refusals?.(input) ?? [])
    .filter((p) => !p.subject || selects(targets, p.subject.kind, p.subject.key));
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
 * of it. `kinds`: the planners and step ops of the kinds to plan (egp's own by default; a kinds
 * value from `createKinds` with plugins).
 */
export function planChanges(
  desired: PlanInput["desired"],
  live: PlanInput["live"],
  options: PlanOptions & { createdAt: string },
  kinds: PlanKinds = BUILT_IN_PLAN_KINDS,
): Plan {
  const { planners } = kinds;
  const targets = parseTargets(options.targets, kinds.steps.kinds);
  const input = planInput(narrowDesired(desired, targets, planners), live, options, planners);
  const problems = planRefusals(desired, live, planners, targets);
  if (problems.length > 0) throw PlanError.refused(problems);
  const sorted = [...planners].sort((a, b) => a.order - b.order);
  const parts = select(
    sorted.map((planner) => planner.plan(input)),
    targets,
  );
  const sealed = sealSensitive(
    parts.flatMap((part) => part.changes),
    parts.flatMap((part) => part.steps),
    desired.sensitive,
  );
  const changes = sealed.changes;
  const steps = orderSteps(changes, sealed.steps, kinds.steps.first);
  const allowDelete = options.allowDelete ?? false;
  const partial = targets.length > 0 ? partialOf(desired, live, planners, targets) : undefined;
  const digests = partial?.digests ?? {
    manifests: desired.digest,
    live: live.digest,
    liveParts: { ...live.partDigests, ...packageSideDigests(live) },
  };
  const recorded = {
    ...(targets.length > 0 ? { targets: targets.map(targetText) } : {}),
    ...(options.manifests?.length ? { manifests: [...options.manifests] } : {}),
  };
  const id = createHash("sha256")
    .update(
      JSON.stringify([
        desired.environment.name,
        digests.manifests,
        digests.live,
        allowDelete,
        options.enforceRoles ?? false,
        ...(Object.keys(recorded).length > 0 ? [recorded] : []),
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
    digests,
    options: { allowDelete, enforceRoles: options.enforceRoles ?? false, ...recorded },
    ...(partial ? { partial: partial.counts } : {}),
    changes,
    steps,
    unmanaged: parts.flatMap((part) => part.unmanaged),
    excluded: parts.flatMap((part) => part.excluded ?? []),
    ...(live.notRead ? { notRead: [...live.notRead] } : {}),
    summary: summarize(changes),
    ...(sealed.sensitive.length > 0 ? { sensitive: sealed.sensitive } : {}),
    ...ambiguousOf(parts),
  };
}

/** The keys a view's planners reported as matching several live objects (`ambiguousKeys: "report"`). */
function ambiguousOf(parts: readonly KindPlan[]): Pick<Plan, "ambiguousKeys"> {
  const ambiguous = parts.flatMap((part) => part.ambiguous ?? []);
  return ambiguous.length > 0 ? { ambiguousKeys: ambiguous } : {};
}

/**
 * A targeted plan keeps the changes of the targeted objects and, as Terraform does, the changes
 * their steps depend on (a user's new security parameter), noted as such; the rest is dropped.
 */
function select(parts: readonly KindPlan[], targets: readonly Target[]): KindPlan[] {
  if (targets.length === 0) return [...parts];
  const all = parts.flatMap((part) => part.changes);
  const stepsOf = Map.groupBy(
    parts.flatMap((part) => part.steps),
    (step: Step) => step.change,
  );
  const kept = new Set(all.filter((c) => selects(targets, c.kind, c.key)).map((c) => c.id));
  const pending = [...kept];
  const included = new Set<string>();
  for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
    for (const step of stepsOf.get(id) ?? []) {
      for (const dependency of step.dependsOn) {
        const change = dependency.startsWith(RESOURCE_DEPENDENCY)
          ? dependency.slice(RESOURCE_DEPENDENCY.length)
          : dependency.split("#")[0];
        if (change === undefined || kept.has(change) || !stepsOf.has(change)) continue;
        kept.add(change);
        included.add(change);
        pending.push(change);
      }
    }
  }
  const keep = (resource: { kind: string; key: string }) => selects(targets, resource.kind, resource.key);
  return parts.map((part) => ({
    changes: part.changes
      .filter((c) => kept.has(c.id))
      .map((c) =>
        included.has(c.id)
          ? { ...c, notes: [...c.notes, "not targeted: a targeted change depends on it"] }
          : c,
      ),
    steps: part.steps.filter((s) => kept.has(s.change)),
    unmanaged: part.unmanaged.filter(keep),
    excluded: (part.excluded ?? []).filter(keep),
    ...(part.ambiguous ? { ambiguous: part.ambiguous.filter(keep) } : {}),
  }));
}

function digest(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}

/**
 * What a partial plan counts and compares: the objects of every kind in the manifests and on the
 * instance (as read: a narrowed read holds only the targeted users), and the targeted ones. Its
 * digests cover the environment and the targeted objects only, so that a saved partial plan is
 * stale when one of its targets changed, and not when something else did.
 */
function partialOf(
  desired: PlanInput["desired"],
  live: PlanInput["live"],
  planners: readonly KindPlanner[],
  targets: readonly Target[],
): { counts: NonNullable<Plan["partial"]>; digests: Plan["digests"] } {
  let of = 0;
  const targeted: Array<{ kind: string; key: string; desired?: unknown; live?: unknown }> = [];
  for (const planner of planners) {
    const objects = planner.objects?.({ desired, live }) ?? [];
    of += objects.length;
    for (const object of objects)
      if (selects(targets, planner.kind, object.key))
        targeted.push({ ...object, kind: planner.kind, key: object.key.toLowerCase() });
  }
  targeted.sort((a, b) => a.kind.localeCompare(b.kind) || a.key.localeCompare(b.key));
  const liveParts = Object.fromEntries(
    planners.map((planner) => [
      planner.kind,
      digest(targeted.filter((t) => t.kind === planner.kind).map((t) => [t.key, t.live ?? null])),
    ]),
  );
  return {
    counts: { targeted: targeted.length, of },
    digests: {
      // Substituted values are digested as their references: a digest of a short secret is a guess away from it.
      manifests: digest(
        withReferences(
          [desired.environment, targeted.map((t) => [t.kind, t.key, t.desired ?? null])],
          desired.sensitive ?? [],
        ),
      ),
      live: digest(liveParts),
      liveParts,
    },
  };
}

import {
  BUILT_IN_STEPS,
  compareResumed,
  type Plan,
  type Step,
  type StepKinds,
  canonicalJson as stringify,
} from "../plan/index.ts";
import type { JournalState } from "./journal.ts";
import { BUILT_IN_OUTLIVE_PLAN } from "./ops/index.ts";
import { PlanMismatchError, StalePlanError } from "./stale.ts";

/*
 * An interrupted apply is resumed only when the same plan is applied again (DESIGN §3). Any other
 * apply plans afresh: the live state shows what the interrupted run did to users and parameters.
 * What it left outside the live state (a package created, generated and downloaded on the source,
 * uploaded to the target) is carried over to the new plan when the new plan promotes the same
 * content, and a step whose outcome it never learnt is checked before it writes, never repeated.
 */

export type Carried = Pick<JournalState, "done" | "interrupted" | "origins"> & { plan: Pick<Plan, "id"> };

const sameStep = (a: Step, b: Step | undefined) =>
  b !== undefined &&
  a.op === b.op &&
  a.environment === b.environment &&
  stringify(a.input) === stringify(b.input) &&
  stringify(a.dependsOn) === stringify(b.dependsOn);

/** What of a superseded run the new plan can use; `outlivePlan`: the kinds' ops whose outputs it reuses. */
export function carryOver(
  previous: JournalState,
  plan: Plan,
  outlivePlan: ReadonlySet<string> = BUILT_IN_OUTLIVE_PLAN,
): Carried {
  const before = new Map(previous.plan.steps.map((step) => [step.id, step]));
  const byChange = Map.groupBy(plan.steps, (step) => step.change);
  const done = new Map<string, Record<string, unknown>>();
  const interrupted = new Set<string>();
  const origins = new Map<string, string>();
  for (const steps of byChange.values()) {
    const unchanged = steps.every((step) => sameStep(step, before.get(step.id)));
    for (const step of steps) {
      if (!sameStep(step, before.get(step.id))) continue;
      const origin = previous.origins.get(step.id) ?? previous.plan.id;
      const output = previous.done.get(step.id);
      if (output && unchanged && outlivePlan.has(step.op)) {
        done.set(step.id, output);
        origins.set(step.id, origin);
      } else if (previous.interrupted.has(step.id)) {
        interrupted.add(step.id);
        origins.set(step.id, origin);
      }
    }
  }
  return { plan: { id: previous.plan.id }, done, interrupted, origins };
}

/**
 * A resumed plan is stale when the manifests changed, or when the instance changed in a way the
 * interrupted run does not explain: a change the plan never had, or a change none of whose steps
 * ran that no longer reads the same.
 */
export function assertResumable(state: JournalState, fresh: Plan, steps: StepKinds = BUILT_IN_STEPS): void {
  const saved = state.plan;
  const reasons: string[] = [];
  if (saved.digests.manifests !== fresh.digests.manifests)
    reasons.push("the manifests or environment files changed");
  const touched = new Set(
    saved.steps
      .filter((step) => state.done.has(step.id) || state.interrupted.has(step.id))
      .map((step) => step.change),
  );
  const savedChanges = new Map(saved.changes.map((change) => [change.id, change]));
  const differing: string[] = [];
  for (const change of fresh.changes) {
    const before = savedChanges.get(change.id);
    if (!before) differing.push(`now also: ${change.id}:${change.action}`);
    else if (
      !touched.has(change.id) &&
      (before.action !== change.action || stringify(before.fields) !== stringify(change.fields))
    )
      differing.push(`${change.id} now reads differently`);
  }
  if (differing.length > 0)
    reasons.push(`the live state of ${saved.environment} changed (${differing.join("; ")})`);
  if (reasons.length > 0)
    throw new StalePlanError(
      `the interrupted plan ${saved.id} is stale: ${reasons.join("; ")} since it was made. ` +
        `Run 'egp apply --env ${saved.environment}' to plan afresh (it discards the interrupted run).`,
    );
  assertResumedSamePlan(state, fresh, steps);
}

/**
 * What is left of an interrupted plan runs only if it is what today's manifests and live state
 * give, as a saved plan runs only if it is (`assertSamePlan`): a journal whose plan was edited (a
 * step's input, a change's fields) is refused before anything is written.
 */
function assertResumedSamePlan(state: JournalState, fresh: Plan, steps: StepKinds): void {
  const found = compareResumed(
    state.plan,
    fresh,
    { done: new Set(state.done.keys()), interrupted: state.interrupted },
    steps,
  );
  if (found.length === 0) return;
  const shown = found.slice(0, 5).join("; ") + (found.length > 5 ? `; and ${found.length - 5} more` : "");
  throw new PlanMismatchError(
    `the interrupted plan ${state.plan.id} is not what the manifests and the live state give for what is left to run (${shown}). ` +
      `Run 'egp apply --env ${state.plan.environment}' to plan afresh (it discards the interrupted run).`,
  );
}

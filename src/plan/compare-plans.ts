import { DESTRUCTIVE_ACTIONS } from "./actions.ts";
import { canonicalJson } from "./compare.ts";
import { BUILT_IN_STEPS, type StepKinds } from "./kinds/steps.ts";
import type { Change, Plan, Step } from "./model.ts";

/*
 * A saved plan is a file a person may edit. Before one is applied, apply derives the plan again from
 * the same manifests and live state and runs the saved one only if the two agree (DESIGN §3, "Apply
 * runs the reviewed plan and nothing else"). These pure checks say, in words, where they don't.
 * `createdAt` is left out: a fresh plan always changes it; so is a partial plan's `partial` count.
 */

const SAVED = "the saved plan";
const FRESH = "a fresh plan";

const MAX_VALUE = 120;

function shown(value: unknown): string {
  if (value === undefined) return "absent";
  const text = canonicalJson(value);
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Where two JSON values differ, as `path: <saved> in the saved plan, <fresh> in a fresh plan`. */
function valueDifferences(where: string, saved: unknown, fresh: unknown): string[] {
  if (canonicalJson(saved) === canonicalJson(fresh)) return [];
  if (isRecord(saved) && isRecord(fresh)) {
    const keys = [...new Set([...Object.keys(saved), ...Object.keys(fresh)])].sort();
    return keys.flatMap((key) => valueDifferences(`${where}.${key}`, saved[key], fresh[key]));
  }
  if (Array.isArray(saved) && Array.isArray(fresh) && saved.length === fresh.length) {
    return saved.flatMap((item, index) => valueDifferences(`${where}[${index}]`, item, fresh[index]));
  }
  return [`${where}: ${shown(saved)} in ${SAVED}, ${shown(fresh)} in ${FRESH}`];
}

function byId<T extends { id: string }>(items: readonly T[]): Map<string, T> {
  return new Map(items.map((item) => [item.id, item]));
}

/** Items only on one side, and the differences of those on both; `describe` names an item. */
function listDifferences<T extends { id: string }>(
  what: string,
  saved: readonly T[],
  fresh: readonly T[],
  describe: (item: T) => string,
  normalize: (item: T) => unknown,
): string[] {
  const [savedById, freshById] = [byId(saved), byId(fresh)];
  const lines: string[] = [];
  for (const item of saved) {
    const other = freshById.get(item.id);
    if (!other) lines.push(`${what} ${describe(item)} is in ${SAVED} but not in ${FRESH}`);
    else lines.push(...valueDifferences(`${what} ${item.id}`, normalize(item), normalize(other)));
  }
  for (const item of fresh)
    if (!savedById.has(item.id)) lines.push(`${what} ${describe(item)} is in ${FRESH} but not in ${SAVED}`);
  return lines;
}

/** dependsOn is a set: its order does not change what runs. */
const stepShape = (step: Step) => ({ ...step, dependsOn: [...step.dependsOn].sort() });
const changeShape = (change: Change) => change;

const article = (word: string) => (/^[aeiou]/.test(word) ? "an" : "a");

/** Each id listed more than once, once more per repeat; linear, as plans run to tens of thousands of steps. */
function repeated(ids: readonly string[]): string[] {
  const seen = new Set<string>();
  return ids.filter((id) => seen.has(id) || !seen.add(id));
}

function stepProblems(
  plan: Plan,
  step: Step,
  changes: Map<string, Change>,
  earlier: Set<string>,
  steps: StepKinds,
): string[] {
  const problems: string[] = [];
  const change = changes.get(step.change);
  if (!change)
    problems.push(`step ${step.id} belongs to change ${step.change}, which the plan does not have`);
  else if (!steps.opsOf(change.kind, change.action).includes(step.op))
    problems.push(
      `step ${step.id} runs ${step.op}, which ${article(change.action)} ${change.action} of a ${change.kind} never runs`,
    );
  const environments = [plan.environment, plan.sourceEnvironment].filter(Boolean);
  if (!environments.includes(step.environment))
    problems.push(`step ${step.id} talks to ${step.environment}, which is not an environment of the plan`);
  for (const dependency of step.dependsOn)
    if (!earlier.has(dependency))
      problems.push(`step ${step.id} depends on ${dependency}, which does not come before it`);
  return problems;
}

/**
 * Whether a plan holds together as the planner makes plans: unique ids, every step one that its
 * change's kind declares for the change's action (`KindSteps.actions`), every change with a step, deletes marked destructive, dependencies that
 * exist and come first. Empty when it does.
 */
export function planConsistency(plan: Plan, steps: StepKinds = BUILT_IN_STEPS): string[] {
  const problems = [
    ...repeated(plan.changes.map((c) => c.id)).map((id) => `change ${id} is listed twice`),
    ...repeated(plan.steps.map((s) => s.id)).map((id) => `step ${id} is listed twice`),
  ];
  const changes = byId(plan.changes);
  const earlier = new Set<string>();
  for (const step of plan.steps) {
    problems.push(...stepProblems(plan, step, changes, earlier, steps));
    earlier.add(step.id);
  }
  const stepped = new Set(plan.steps.map((step) => step.change));
  for (const change of plan.changes) {
    if (!stepped.has(change.id)) problems.push(`change ${change.id} has no step`);
    const destructive = DESTRUCTIVE_ACTIONS.includes(change.action);
    if (change.destructive !== destructive)
      problems.push(
        `change ${change.id} is a ${change.action} marked ${change.destructive ? "" : "not "}destructive`,
      );
  }
  return problems;
}

/**
 * How a saved plan differs from one derived afresh from the same manifests and live state; empty
 * when the two are the same plan. Each line names the change or step and the field, with both
 * values (plans hold no secrets).
 */
export function planDifferences(saved: Plan, derived: Plan): string[] {
  // A partial plan's counts say how many objects it knew of, which objects it does not target change.
  // Sensitive values are compared by their digests, on apply (apply/sealed.ts), never shown here.
  const {
    createdAt: _a,
    partial: _p,
    sealing: _s,
    changes: savedChanges,
    steps: savedSteps,
    ...savedRest
  } = saved;
  const {
    createdAt: _b,
    partial: _q,
    sealing: _t,
    changes: freshChanges,
    steps: freshSteps,
    ...freshRest
  } = derived;
  const places = (plan: Plan) =>
    plan.sensitive?.map(({ step, path, reference }) => ({ step, path, reference }));
  return [
    ...valueDifferences(
      "plan",
      { ...savedRest, sensitive: places(saved) },
      { ...freshRest, sensitive: places(derived) },
    ),
    ...listDifferences("change", savedChanges, freshChanges, (c) => `${c.id} (${c.action})`, changeShape),
    ...listDifferences("step", savedSteps, freshSteps, (s) => `${s.id} (${s.op})`, stepShape),
  ];
}

/**
 * How a saved plan fails to hold together on its own (`planConsistency`), then how it differs from
 * one derived afresh (`planDifferences`); empty when apply may run it.
 */
export function comparePlans(saved: Plan, derived: Plan, steps: StepKinds = BUILT_IN_STEPS): string[] {
  return [
    ...planConsistency(saved, steps).map((problem) => `${SAVED}: ${problem}`),
    ...planDifferences(saved, derived),
  ];
}

/**
 * How the plan of an interrupted run differs from one derived now, for what is left to run: each
 * step not done must be the fresh plan's step, under the fresh plan's change when the run did not
 * touch it. Steps done changed the live state, so a change the run touched may have left the fresh plan: what is left
 * of it (a verify after an install, a step whose outcome the run never learnt, which is checked
 * before it writes) is the journal's, which the local key authenticates. Empty when it may resume.
 */
export function compareResumed(
  saved: Plan,
  derived: Plan,
  progress: { done: ReadonlySet<string>; interrupted: ReadonlySet<string> },
  kinds: StepKinds = BUILT_IN_STEPS,
): string[] {
  const changes = byId(derived.changes);
  const steps = byId(derived.steps);
  const savedChanges = byId(saved.changes);
  const touched = new Set(
    saved.steps
      .filter((step) => progress.done.has(step.id) || progress.interrupted.has(step.id))
      .map((step) => step.change),
  );
  const lines = planConsistency(saved, kinds).map((problem) => `${SAVED}: ${problem}`);
  // The source is named only while something is left to promote; each step names its own.
  lines.push(...valueDifferences("plan.environment", saved.environment, derived.environment));
  const compared = new Set<string>();
  for (const step of saved.steps) {
    if (progress.done.has(step.id)) continue;
    const fresh = steps.get(step.id);
    const change = savedChanges.get(step.change);
    const freshChange = changes.get(step.change);
    if (!fresh) {
      if (!(touched.has(step.change) && !freshChange))
        lines.push(`step ${step.id} (${step.op}) is left to run in ${SAVED} but not in ${FRESH}`);
      continue;
    }
    // A dependency the run finished may have left the fresh plan with its change.
    const left = { ...step, dependsOn: step.dependsOn.filter((id) => !progress.done.has(id)) };
    const now = { ...fresh, dependsOn: fresh.dependsOn.filter((id) => !progress.done.has(id)) };
    lines.push(...valueDifferences(`step ${step.id}`, stepShape(left), stepShape(now)));
    // A change the run touched reads differently now by what it did; its steps still must agree.
    if (change && freshChange && !touched.has(change.id) && !compared.has(change.id)) {
      compared.add(change.id);
      lines.push(...valueDifferences(`change ${change.id}`, change, freshChange));
    }
  }
  return lines;
}

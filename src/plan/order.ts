import { RESOURCE_DEPENDENCY } from "./kinds/kind.ts";
import type { Change, Step } from "./model.ts";

/**
 * Resolves dependencies and orders the steps:
 * - `resource:<change id>` becomes a dependency on that change's last step, or is dropped when the
 *   plan does not change that resource;
 * - every destructive step waits for every non-destructive one (deletes come last);
 * - every step waits for the steps that fetch and check what the apply needs (`first`, the kinds' `KindSteps.first`: a
 *   release's package file), so that a file that fails its check leaves the target untouched;
 * - the result is a topological order, stable for equal inputs (kind order, then plan order).
 */
export function orderSteps(
  changes: readonly Change[],
  steps: readonly Step[],
  first: ReadonlySet<string>,
): Step[] {
  const destructive = new Set(changes.filter((c) => c.destructive).map((c) => c.id));
  const lastStepOf = new Map<string, string>();
  for (const step of steps) lastStepOf.set(step.change, step.id);
  const constructive = steps.filter((s) => !destructive.has(s.change)).map((s) => s.id);
  const firstSteps = steps.filter((s) => first.has(s.op)).map((s) => s.id);

  const resolved = steps.map((step) => {
    const dependsOn = new Set<string>();
    for (const dependency of step.dependsOn) {
      if (!dependency.startsWith(RESOURCE_DEPENDENCY)) {
        dependsOn.add(dependency);
        continue;
      }
      const target = lastStepOf.get(dependency.slice(RESOURCE_DEPENDENCY.length));
      if (target && target !== step.id) dependsOn.add(target);
    }
    if (destructive.has(step.change)) for (const id of constructive) dependsOn.add(id);
    if (!first.has(step.op)) for (const id of firstSteps) dependsOn.add(id);
    return { ...step, dependsOn: [...dependsOn] };
  });
  return topological(resolved);
}

function topological(steps: Step[]): Step[] {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const done = new Set<string>();
  const visiting = new Set<string>();
  const ordered: Step[] = [];
  const visit = (step: Step): void => {
    if (done.has(step.id)) return;
    if (visiting.has(step.id)) throw new Error(`plan: dependency cycle through ${step.id}`);
    visiting.add(step.id);
    for (const dependency of step.dependsOn) {
      const next = byId.get(dependency);
      if (!next) throw new Error(`plan: ${step.id} depends on unknown step ${dependency}`);
      visit(next);
    }
    visiting.delete(step.id);
    done.add(step.id);
    ordered.push(step);
  };
  for (const step of steps) visit(step);
  return ordered;
}

import { EgpError } from "../errors/index.ts";
import {
  BUILT_IN_STEPS,
  type Plan,
  planConsistency,
  planDifferences,
  SIDE_SEPARATOR,
  type StepKinds,
} from "../plan/index.ts";
import { type AnyLiveKind, BUILT_IN_LIVE_KINDS } from "../state/index.ts";

/** A saved plan made from manifests or a live state that have changed since. */
export class StalePlanError extends EgpError {
  constructor(message: string) {
    super("EGP_PLAN_STALE", message);
    this.name = "StalePlanError";
  }
}

/** What a refused saved plan's message ends with: how to make it again. */
const PLAN_AGAIN = "Run egp plan again.";

/** Refuses a saved plan whose inputs changed, saying which (by the labels of `live`, the kinds' live reads). */
export function assertFresh(
  saved: Plan,
  fresh: Plan,
  again = PLAN_AGAIN,
  live: readonly Pick<AnyLiveKind, "part" | "label">[] = BUILT_IN_LIVE_KINDS,
): void {
  const reasons: string[] = [];
  if (saved.digests.manifests !== fresh.digests.manifests)
    reasons.push("the manifests or environment files changed");
  if (saved.digests.live !== fresh.digests.live) {
    const differs = (part: string) => saved.digests.liveParts[part] !== fresh.digests.liveParts[part];
    const keys = Object.keys(saved.digests.liveParts);
    // A part read on two instances (packages: target and source) names the one that changed.
    const sides = (part: string) =>
      keys.filter((key) => key.startsWith(`${part}${SIDE_SEPARATOR}`) && differs(key));
    const of = new Map<string, string[]>();
    const add = (env: string, what: string) => of.set(env, [...(of.get(env) ?? []), what]);
    for (const kind of live.filter(({ part }) => differs(part))) {
      const changed = sides(kind.part);
      if (changed.length === 0) add(saved.environment, kind.label);
      for (const key of changed) add(key.slice(kind.part.length + 1), kind.label);
    }
    // A partial plan's parts are its targets by kind (`User`, …), not the live state's.
    for (const kind of keys.filter(
      (part) => !part.includes(SIDE_SEPARATOR) && !live.some((k) => k.part === part) && differs(part),
    ))
      add(saved.environment, `targeted ${kind} objects`);
    if (of.size === 0) add(saved.environment, "state");
    for (const [env, what] of of) reasons.push(`the live ${what.join(", ")} of ${env} changed`);
  }
  if (reasons.length === 0) return;
  const savedIds = new Set(saved.changes.map((c) => `${c.id}:${c.action}`));
  const freshIds = new Set(fresh.changes.map((c) => `${c.id}:${c.action}`));
  const added = [...freshIds].filter((id) => !savedIds.has(id));
  const gone = [...savedIds].filter((id) => !freshIds.has(id));
  const detail = [
    added.length ? `now also: ${added.join(", ")}` : "",
    gone.length ? `no longer: ${gone.join(", ")}` : "",
  ].filter(Boolean);
  throw new StalePlanError(
    `the saved plan ${saved.id} is stale: ${reasons.join("; ")} since it was made${detail.length ? ` (${detail.join("; ")})` : ""}. ${again}`,
  );
}

/** A saved plan whose changes or steps are not what its own manifests and live state give. */
export class PlanMismatchError extends EgpError {
  constructor(message: string) {
    super("EGP_PLAN_MISMATCH", message);
    this.name = "PlanMismatchError";
  }
}

const listed = (found: readonly string[]) =>
  found.slice(0, 5).join("; ") + (found.length > 5 ? `; and ${found.length - 5} more` : "");

/**
 * A saved plan runs only if it is exactly what planning its manifests against the same live state
 * gives (its digests match, and the planner is deterministic): a file edited after review, with a
 * step turned into a delete or roles added to an input, is refused, naming what differs. Only a
 * plan that does not hold together as egp makes plans is called edited: one that holds together
 * may as well come from another egp. A fresh plan that does not hold together is egp's own defect
 * (a kind whose declared actions miss an op its planner uses), never blamed on the file.
 */
export function assertSamePlan(
  saved: Plan,
  derived: Plan,
  again = PLAN_AGAIN,
  steps: StepKinds = BUILT_IN_STEPS,
): void {
  const own = planConsistency(derived, steps);
  if (own.length > 0)
    throw new Error(
      `egp's own plan of ${derived.environment} does not hold together (${listed(own)}): a defect of egp or of a plugin kind (its declared actions, its planner), not of the file; the saved plan ${saved.id} is not applied`,
    );
  const broken = planConsistency(saved, steps);
  const found = planDifferences(saved, derived);
  if (broken.length > 0)
    throw new PlanMismatchError(
      `the saved plan ${saved.id} does not hold together as egp makes plans (${listed([...broken, ...found])}); it was changed after it was made. ${again}`,
    );
  if (found.length === 0) return;
  throw new PlanMismatchError(
    `the saved plan ${saved.id} is not what its manifests and the live state give (${listed(found)}); it was edited, or made by another version of egp or of its kinds. ${again}`,
  );
}

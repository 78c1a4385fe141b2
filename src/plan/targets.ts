import type { DesiredState } from "../manifest/index.ts";
import { globMatcher, isGlob } from "./glob.ts";
import { BUILT_IN_PLANNERS } from "./kinds/index.ts";
import { documentsWhere, type KindPlanner, PlanError } from "./kinds/kind.ts";
import { BUILT_IN_STEPS, type ChangeKind } from "./kinds/steps.ts";

/*
 * `--target KIND/KEY` (repeatable, `*` globs, case-insensitive), as Terraform's -target: a plan of
 * only the objects named, plus what their steps depend on. Pure: the CLI narrows its reads with
 * `keysToRead`, the planner narrows its input with `narrowDesired` and its output with `selects`.
 */

export interface Target {
  kind: ChangeKind;
  /** The key as written, quotes removed; may hold `*`. */
  pattern: string;
}

/**
 * `User/kmurphy`, `Package/"GRC Core"`, `user/k*`: the kind, one of `kinds` (the names plans give
 * them), is matched case-insensitively.
 */
export function parseTarget(text: string, kinds: readonly string[] = BUILT_IN_STEPS.kinds): Target {
  const slash = text.indexOf("/");
  const kindText = slash < 0 ? text : text.slice(0, slash);
  const kind = kinds.find((k) => k.toLowerCase() === kindText.trim().toLowerCase());
  const pattern =
    slash < 0
      ? ""
      : text
          .slice(slash + 1)
          .trim()
          .replace(/^"(.*)"$/su, "$1");
  if (!kind)
    throw new PlanError(
      `--target ${JSON.stringify(text)}: unknown kind "${kindText}" (expected KIND/KEY, KIND one of ${kinds.join(", ")})`,
    );
  if (pattern === "")
    throw new PlanError(
      `--target ${JSON.stringify(text)}: expected KIND/KEY, e.g. ${kind}/name or ${kind}/prefix*`,
    );
  return { kind, pattern };
}

export function parseTargets(
  texts: readonly string[] | undefined,
  kinds: readonly string[] = BUILT_IN_STEPS.kinds,
): Target[] {
  return (texts ?? []).map((text) => parseTarget(text, kinds));
}

/** The written form, as a plan file records it. */
export function targetText(target: Target): string {
  return `${target.kind}/${target.pattern}`;
}

/** Each kind's matcher, built once per list of targets: a plan asks once per object. */
const matchers = new WeakMap<readonly Target[], Map<string, (key: string) => boolean>>();

/** Whether the targets select an object of `kind` by its key; true for everything when there are none. */
export function selects(targets: readonly Target[], kind: string, key: string): boolean {
  if (targets.length === 0) return true;
  const byKind = matchers.get(targets) ?? new Map<string, (key: string) => boolean>();
  matchers.set(targets, byKind);
  let matches = byKind.get(kind);
  if (!matches) {
    matches = globMatcher(targets.filter((t) => t.kind === kind).map((t) => t.pattern));
    byKind.set(kind, matches);
  }
  return matches(key);
}

/** The kinds whose documents stay whole: those targeted ones' plans read (a parameter's users). */
function keptWhole(targets: readonly Target[], planners: readonly KindPlanner[]): Set<string> {
  const targeted = new Set(targets.map((t) => t.kind));
  return new Set(planners.filter((p) => targeted.has(p.kind)).flatMap((p) => p.reads ?? []));
}

/**
 * The desired state with each kind's documents narrowed to the targeted ones, except the kinds a
 * targeted kind's plan reads whole. The same state with no targets.
 */
export function narrowDesired(
  desired: DesiredState,
  targets: readonly Target[],
  planners: readonly KindPlanner[] = BUILT_IN_PLANNERS,
): DesiredState {
  if (targets.length === 0) return desired;
  const whole = keptWhole(targets, planners);
  const narrowed: Record<string, unknown> = { ...desired };
  for (const planner of planners) {
    if (!planner.documents || whole.has(planner.kind)) continue;
    const { documents, kind } = planner;
    narrowed[documents.plural] = documentsWhere(documents, desired, (key) => selects(targets, kind, key));
  }
  narrowed.absent = desired.absent.filter((a) => whole.has(a.kind) || selects(targets, a.kind, a.name));
  return narrowed as DesiredState;
}

/**
 * The keys of `kind` a targeted plan needs read, when the targets name them exactly: the instance
 * can then be asked for those only (an OData `eq` filter). Undefined: read every object of the kind
 * (no targets, a glob, or a targeted kind's plan reads this one whole).
 */
export function keysToRead(
  targets: readonly Target[],
  kind: string,
  planners: readonly KindPlanner[] = BUILT_IN_PLANNERS,
): string[] | undefined {
  if (targets.length === 0 || keptWhole(targets, planners).has(kind)) return undefined;
  const own = targets.filter((t) => t.kind === kind);
  if (own.some((t) => isGlob(t.pattern))) return undefined;
  return [...new Set(own.map((t) => t.pattern))];
}

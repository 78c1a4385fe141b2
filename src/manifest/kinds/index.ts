import type { SourceLocation } from "../errors.ts";
import type { DesiredAbsent, Kind, PruneChoice } from "./kind.ts";
import { packageKind } from "./package.ts";
import { isPrunable, noPruning, prunePolicyKind } from "./prune-policy.ts";
import { securityParameterKind } from "./security-parameter.ts";
import { userKind } from "./user.ts";

/**
 * The kinds whose documents the desired state lists, each under its `plural`; adding a kind is
 * adding its file and one entry here.
 */
export const LISTED_KINDS = [securityParameterKind, userKind, packageKind] as const;

type Listed = (typeof LISTED_KINDS)[number];
type Prunable = Extract<Listed, { prune: PruneChoice }>;

/** Each prunable kind's choice, under its plural (`users: "ignore" | "deactivate" | "delete"`, …). */
export type PruneOptions = { readonly [K in Prunable as K["plural"]]: K["prune"]["values"][number] };
/** The plural names of the prunable kinds. */
export type PrunablePlural = keyof PruneOptions;

/** A PrunePolicy as normalized: derived from the prunable kinds of the registry. */
export type DesiredPrunePolicy = PruneOptions & {
  kind: "PrunePolicy";
  /** Names never pruned (case-insensitive, `*` globs), per prunable kind. */
  exclude: { readonly [P in PrunablePlural]: readonly string[] };
  /** Where the policy is written; null when no document sets one (everything is ignored). */
  source: SourceLocation | null;
};

/** The kinds a PrunePolicy speaks of, in the registry's order. */
export const PRUNABLE_KINDS = LISTED_KINDS.filter(isPrunable) as readonly Prunable[];

/** The policy of an environment that has no PrunePolicy document: nothing is pruned. */
export const NO_PRUNING: DesiredPrunePolicy = Object.freeze(noPruning(PRUNABLE_KINDS) as DesiredPrunePolicy);

const prunePolicy = prunePolicyKind<DesiredPrunePolicy>(PRUNABLE_KINDS);

/** Every document kind: the listed ones, and the prune policy (at most one, `DesiredState.prune`). */
export const KINDS = [...LISTED_KINDS, prunePolicy] as const;

type DesiredOf<K> = K extends Kind<infer Desired> ? Desired : never;

/** The desired state's lists: `securityParameters`, `users`, … as the kinds name them. */
export type DesiredLists = {
  readonly [K in Listed as K["plural"]]: readonly DesiredOf<K>[];
};

/** A normalized document of any kind, discriminated by `kind`, or an `ensure: absent` one. */
export type DesiredDocument = DesiredOf<(typeof KINDS)[number]> | DesiredAbsent;

export function kindNamed(name: unknown): (typeof KINDS)[number] | undefined {
  return KINDS.find((kind) => kind.kind === name);
}

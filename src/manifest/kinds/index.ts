import type { SourceLocation } from "../errors.ts";
import type { DesiredAbsent, FieldWords, Kind, PruneChoice } from "./kind.ts";
import { packageKind } from "./package.ts";
import { isPrunable, noPruning, prunePolicyKind } from "./prune-policy.ts";
import { securityParameterKind } from "./security-parameter.ts";
import { userKind } from "./user.ts";

/**
 * The kinds whose documents the desired state lists, each under its `plural`; adding a kind is
 * adding its file and one entry here.
 */
const BUILT_IN = [securityParameterKind, userKind, packageKind] as const;

type Listed = (typeof BUILT_IN)[number];
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

/**
 * The kinds a PrunePolicy speaks of, in the registry's order. The policy's schema is made from the
 * built-in kinds: a kind registered from outside (`registerKind`) is not prunable.
 */
export const PRUNABLE_KINDS = BUILT_IN.filter(isPrunable) as readonly Prunable[];

/** The policy of an environment that has no PrunePolicy document: nothing is pruned. */
export const NO_PRUNING: DesiredPrunePolicy = Object.freeze(noPruning(PRUNABLE_KINDS) as DesiredPrunePolicy);

const prunePolicy = prunePolicyKind<DesiredPrunePolicy>(PRUNABLE_KINDS);

type DesiredOf<K> = K extends Kind<infer Desired> ? Desired : never;

/**
 * Listed kinds registered from outside this list (`registerKind`), by plural, each with its
 * normalized document type. A module that registers one adds it here, so that the desired state's
 * type lists it: `declare module ".../manifest/kinds/index.ts" { interface RegisteredKinds { widgets: DesiredWidget } }`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging, as above.
export interface RegisteredKinds {}

/**
 * The desired state's lists: `securityParameters`, `users`, … as the kinds name them. A registered
 * kind's list is optional: a state made before it was registered has none (read it with `?? []`).
 */
export type DesiredLists = {
  readonly [K in Listed as K["plural"]]: readonly DesiredOf<K>[];
} & { readonly [P in keyof RegisteredKinds]?: readonly RegisteredKinds[P][] };

/** A normalized document of any kind, discriminated by `kind`, or an `ensure: absent` one. */
export type DesiredDocument =
  | DesiredOf<Listed | typeof prunePolicy>
  | DesiredAbsent
  | RegisteredKinds[keyof RegisteredKinds];

// biome-ignore lint/suspicious/noExplicitAny: each kind's document type is checked where it is defined.
type AnyKind = Kind<any>;

/** The listed kinds, in registry order; grows as kinds are registered. */
export const LISTED_KINDS: readonly AnyKind[] = [...BUILT_IN];

/** Every document kind: the listed ones, and the prune policy (at most one, `DesiredState.prune`). */
export const KINDS: readonly AnyKind[] = [...LISTED_KINDS, prunePolicy];

const BUILT_IN_KINDS: ReadonlySet<AnyKind> = new Set(KINDS);

/** A kind of egp's own: its code is part of egp's, which the manifest cache's key covers. */
export function isBuiltInKind(kind: AnyKind): boolean {
  return BUILT_IN_KINDS.has(kind);
}

export function kindNamed(name: unknown): AnyKind | undefined {
  return KINDS.find((kind) => kind.kind === name);
}

/** Adds a listed kind from outside this list; its name and plural must be new. */
export function registerKind(kind: AnyKind): void {
  if (KINDS.some((known) => known.kind === kind.kind || known.plural === kind.plural))
    throw new TypeError(`kind ${kind.kind} (${kind.plural}) is already registered`);
  (LISTED_KINDS as AnyKind[]).push(kind);
  (KINDS as AnyKind[]).splice(KINDS.length - 1, 0, kind);
}

/** A kind's words for plans (kind.ts, `FieldWords`), by the kind's name. */
export function fieldWordsOf(kind: string): FieldWords | undefined {
  return kindNamed(kind)?.words;
}

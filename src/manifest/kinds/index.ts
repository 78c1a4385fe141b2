import type { SourceLocation } from "../errors.ts";
import type { DesiredAbsent, FieldWords, Kind, PruneChoice } from "./kind.ts";
import { packageKind } from "./package.ts";
import { isPrunable, noPruning, type PrunableKind, prunePolicyKind } from "./prune-policy.ts";
import { recordKind } from "./record.ts";
import { securityParameterKind } from "./security-parameter.ts";
import { userKind } from "./user.ts";

/**
 * egp's own kinds whose documents the desired state lists, each under its `plural`. A kind from
 * outside egp comes in the kinds value the caller passes (src/compose/kinds.ts); `documentKinds`
 * derives what the manifest stage looks up from a list of them.
 */
const BUILT_IN = [securityParameterKind, userKind, packageKind, recordKind] as const;

type Listed = (typeof BUILT_IN)[number];
type Prunable = Extract<Listed, { prune: PruneChoice }>;

/** Each built-in prunable kind's choice, under its plural (`users: "ignore" | "deactivate" | "delete"`, …). */
export type PruneOptions = { readonly [K in Prunable as K["plural"]]: K["prune"]["values"][number] };
/** The plural names of the built-in prunable kinds. */
export type PrunablePlural = keyof PruneOptions;

/**
 * A PrunePolicy as normalized: derived from the prunable kinds of the kinds value it was loaded
 * with. A plugin kind's choice and exclusions are under its plural too (read them by index).
 */
export type DesiredPrunePolicy = PruneOptions & {
  readonly [plural: string]: unknown;
  kind: "PrunePolicy";
  /** Names never pruned (case-insensitive, `*` globs), per prunable kind. */
  exclude: { readonly [P in PrunablePlural]: readonly string[] } & Readonly<
    Record<string, readonly string[]>
  >;
  /** Where the policy is written; null when no document sets one (everything is ignored). */
  source: SourceLocation | null;
};

type DesiredOf<K> = K extends Kind<infer Desired> ? Desired : never;

/**
 * The desired state's lists of egp's own kinds: `securityParameters`, `users`, … as the kinds name
 * them. A plugin kind's list is under its plural too; its own code reads it (`documentsOf`).
 */
export type DesiredLists = {
  readonly [K in Listed as K["plural"]]: readonly DesiredOf<K>[];
};

/** A normalized document of one of egp's own kinds, discriminated by `kind`, or an `ensure: absent` one. */
export type DesiredDocument = DesiredOf<Listed> | DesiredPrunePolicy | DesiredAbsent;

// biome-ignore lint/suspicious/noExplicitAny: each kind's document type is checked where it is defined.
type AnyKind = Kind<any>;

/** The document kinds of one kinds value, and what the manifest stage looks up in them. */
export interface DocumentKinds {
  /** The kinds whose documents the desired state lists, in the list's order. */
  readonly listed: readonly AnyKind[];
  /** Every document kind: the listed ones, then the prune policy (at most one, `DesiredState.prune`). */
  readonly all: readonly AnyKind[];
  /** The kinds a PrunePolicy speaks of, in the list's order: those that declare a `prune` choice. */
  readonly prunable: readonly PrunableKind[];
  /** The policy of an environment that has no PrunePolicy document: nothing is pruned. */
  readonly noPruning: DesiredPrunePolicy;
  named(name: unknown): AnyKind | undefined;
  /** A kind's words for plans (kind.ts, `FieldWords`), by the kind's name. */
  words(kind: string): FieldWords | undefined;
  /**
   * Whether the manifest cache may keep a document of this kind: egp's own kinds only, whose code
   * its key covers (a plugin's code is not egp's, and a PrunePolicy's schema depends on the list).
   */
  cacheable(kind: AnyKind): boolean;
  /** Every kind is egp's own: a whole environment's state may be kept by the cache. */
  readonly builtInOnly: boolean;
}

const OWN: ReadonlySet<AnyKind> = new Set(BUILT_IN);

function assertUnique(listed: readonly AnyKind[]): void {
  const seen = new Map<string, string>([
    ["PrunePolicy", "PrunePolicy"],
    ["prunePolicies", "PrunePolicy"],
  ]);
  for (const kind of listed)
    for (const name of [kind.kind, kind.plural]) {
      const other = seen.get(name);
      if (other) throw new TypeError(`kind ${kind.kind}: ${name} is also a name of ${other}`);
      seen.set(name, kind.kind);
    }
}

/**
 * The lookups of a list of document kinds: the PrunePolicy's schema is made from the prunable ones
 * of this list, so that a plugin kind is prunable as a built-in is. A name or plural listed twice is
 * a programming error of whoever made the list.
 */
export function documentKinds(listed: readonly AnyKind[]): DocumentKinds {
  assertUnique(listed);
  const prunable: PrunableKind[] = listed.filter(isPrunable);
  const prunePolicy = prunePolicyKind<DesiredPrunePolicy>(prunable);
  const all: readonly AnyKind[] = Object.freeze([...listed, prunePolicy]);
  const byName = new Map(all.map((kind) => [kind.kind, kind]));
  const builtInOnly = listed.every((kind) => OWN.has(kind));
  return Object.freeze({
    listed: Object.freeze([...listed]),
    all,
    prunable: Object.freeze(prunable),
    noPruning: Object.freeze(noPruning(prunable)) as DesiredPrunePolicy,
    named: (name: unknown) => (typeof name === "string" ? byName.get(name) : undefined),
    words: (kind: string) => byName.get(kind)?.words,
    cacheable: (kind: AnyKind) => OWN.has(kind) || (builtInOnly && kind === prunePolicy),
    builtInOnly,
  });
}

/** egp's own document kinds: what a repository is loaded with when no kinds are given. */
export const BUILT_IN_DOCUMENT_KINDS: DocumentKinds = documentKinds(BUILT_IN);

/** The policy of an environment that has no PrunePolicy document, for egp's own kinds: nothing is pruned. */
export const NO_PRUNING: DesiredPrunePolicy = BUILT_IN_DOCUMENT_KINDS.noPruning;

/** A built-in kind's words for plans (kind.ts, `FieldWords`), by the kind's name. */
export const fieldWordsOf = BUILT_IN_DOCUMENT_KINDS.words;

export { packageKind, recordKind, securityParameterKind, userKind };

import type { DesiredAbsent } from "../manifest/index.ts";
import { globMatcher } from "./glob.ts";
import type { ChangeKind, UnmanagedResource } from "./model.ts";

/*
 * The prune pass every prunable kind shares: which live objects `ensure: absent` deletes, which the
 * manifests keep, which a PrunePolicy `exclude` protects, and which are left to the kind's policy.
 */

export interface PruneInput<Live> {
  kind: ChangeKind;
  live: readonly Live[];
  /** The object's key, lower case, as the manifests' keys are compared. */
  keyOf(live: Live): string;
  /** The object's name as the instance spells it: what `exclude` globs match and the plan shows. */
  nameOf(live: Live): string;
  /**
   * Lower-case keys of the objects the manifests describe (present ones), or a test of a key, for
   * a kind that has already matched its documents with the live objects.
   */
  present: Iterable<string> | ((key: string) => boolean);
  /** The kind's `ensure: absent` documents. */
  absent: readonly DesiredAbsent[];
  /** The PrunePolicy's `exclude` globs for this kind. */
  exclude: readonly string[];
}

export interface PruneVisitor<Live> {
  /** A live object that an `ensure: absent` document names. */
  absent(live: Live, document: DesiredAbsent): void;
  /** A live object in no manifest and not excluded: the kind's prune policy decides. */
  unmanaged(live: Live): void;
}

function setOf(keys: Iterable<string>): (key: string) => boolean {
  const set = new Set(keys);
  return (key) => set.has(key);
}

/** Visits the live objects in their order; returns the ones `exclude` protects (never pruned). */
export function prunePass<Live>(input: PruneInput<Live>, visit: PruneVisitor<Live>): UnmanagedResource[] {
  const absent = new Map(input.absent.map((document) => [document.key, document]));
  const { present } = input;
  const managed = typeof present === "function" ? present : setOf(present);
  const excluded = globMatcher(input.exclude);
  const protectedOnes: UnmanagedResource[] = [];
  for (const live of input.live) {
    const key = input.keyOf(live);
    const document = absent.get(key);
    if (document) visit.absent(live, document);
    else if (managed(key)) continue;
    else if (excluded(input.nameOf(live))) protectedOnes.push({ kind: input.kind, key: input.nameOf(live) });
    else visit.unmanaged(live);
  }
  return protectedOnes;
}

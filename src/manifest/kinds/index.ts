import type { FieldWords, Kind } from "./kind.ts";
import { packageKind } from "./package.ts";
import { prunePolicyKind } from "./prune-policy.ts";
import { securityParameterKind } from "./security-parameter.ts";
import { userKind } from "./user.ts";

/**
 * The kinds whose documents the desired state lists, each under its `plural`; adding a kind is
 * adding its file and one entry here.
 */
export const LISTED_KINDS = [securityParameterKind, userKind, packageKind] as const;

/** Every document kind: the listed ones, and the prune policy (at most one, `DesiredState.prune`). */
export const KINDS = [...LISTED_KINDS, prunePolicyKind] as const;

type DesiredOf<K> = K extends Kind<infer Desired> ? Desired : never;

/** The desired state's lists: `securityParameters`, `users`, … as the kinds name them. */
export type DesiredLists = {
  readonly [K in (typeof LISTED_KINDS)[number] as K["plural"]]: readonly DesiredOf<K>[];
};

/** A normalized document of any kind, discriminated by `kind`. */
export type DesiredDocument = DesiredOf<(typeof KINDS)[number]>;

export function kindNamed(name: unknown): (typeof KINDS)[number] | undefined {
  return KINDS.find((kind) => kind.kind === name);
}

/** A kind's words for plans (kind.ts, `FieldWords`), by the kind's name. */
export function fieldWordsOf(kind: string): FieldWords | undefined {
  return kindNamed(kind)?.words;
}

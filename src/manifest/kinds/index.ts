import type { Kind } from "./kind.ts";
import { packageKind } from "./package.ts";
import { prunePolicyKind } from "./prune-policy.ts";
import { securityParameterKind } from "./security-parameter.ts";
import { userKind } from "./user.ts";

/** Every document kind; adding a kind is adding its file and one entry here. */
export const KINDS = [securityParameterKind, userKind, packageKind, prunePolicyKind] as const;

type DesiredOf<K> = K extends Kind<infer Desired> ? Desired : never;

/** A normalized document of any kind, discriminated by `kind`. */
export type DesiredDocument = DesiredOf<(typeof KINDS)[number]>;

export function kindNamed(name: unknown): (typeof KINDS)[number] | undefined {
  return KINDS.find((kind) => kind.kind === name);
}

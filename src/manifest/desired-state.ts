import type { EnvironmentConfig } from "./environment.ts";
import type { DesiredLists, DesiredPrunePolicy } from "./kinds/index.ts";
import type { DesiredAbsent } from "./kinds/kind.ts";
import type { DesiredRelease } from "./release-file.ts";
import type { SensitiveValue } from "./sensitive.ts";

/**
 * What the repository asks of one environment: its connection settings and every document that
 * applies to it, normalized to the platform's vocabulary. Frozen. Secrets are `Secret` objects,
 * which print as `[redacted]`.
 */
export type DesiredState = DesiredLists & {
  environment: EnvironmentConfig;
  /** The environment named by `packagesFrom`, where packages are created and downloaded. */
  packagesFrom?: EnvironmentConfig;
  /** The release the environment runs (`release:`), read from `releases/<name>.yaml`. */
  release?: DesiredRelease;
  prune: DesiredPrunePolicy;
  /** Objects that documents with `ensure: absent` delete, in file order. */
  absent: readonly DesiredAbsent[];
  /**
   * sha256 (hex) of the files this state was read from, as written (before `${VAR}` substitution,
   * so that a secret never influences it): a plan made from it is stale once it changes.
   */
  digest: string;
  /** Repository-relative paths of those files. */
  files: readonly string[];
  /**
   * Every value `${VAR}` substitution filled in, in the environment files and in the documents:
   * plans show their references, never them (docs/security.md: output is never scrubbed by value).
   */
  sensitive?: readonly SensitiveValue[];
};

/** Freezes a state and everything in it, so that no stage can change what the next one sees. */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
  // What Object.values lists, without an array per object: items by index, own enumerable properties.
  if (Array.isArray(value)) for (let i = 0; i < value.length; i++) deepFreeze(value[i]);
  else {
    const object = value as Record<string, unknown>;
    for (const key in object) if (Object.hasOwn(object, key)) deepFreeze(object[key]);
  }
  return Object.freeze(value);
}

import stringify from "safe-stable-stringify";
import { z } from "zod";
import type { LocalKey } from "../io/local-key.ts";

/*
 * Records egp writes to the store and later believes (audit records, rejections) carry a seal: an
 * HMAC of their canonical JSON under the key that wrote them, and that key's public id. A record
 * edited after it was written, or written by someone without the key, fails its check.
 */

export const Seal = z.strictObject({ key: z.string(), tag: z.string() });
export type Seal = z.infer<typeof Seal>;

export const canonical = (value: unknown) => stringify(value) ?? "null";

export function sealRecord<T extends object>(record: T, purpose: string, key: LocalKey): T & { seal: Seal } {
  return { ...record, seal: { key: key.id, tag: key.seal(canonical(record), purpose) } };
}

/** Why a sealed record can't be believed; undefined when its seal holds. */
export function sealProblem(record: { seal: Seal }, purpose: string, key: LocalKey): string | undefined {
  const { seal, ...rest } = record;
  if (seal.key !== key.id)
    return `it is sealed with key ${seal.key}, which this machine does not hold (a store shared between machines needs the shared signing key: docs/security.md)`;
  if (!key.check(canonical(rest), seal.tag, purpose))
    return "its seal does not match its content (it was edited)";
  return undefined;
}

import { z } from "zod";
import { distrust, trustOf, withoutSignature } from "../store/signing.ts";
import type { ReleaseStore } from "../store/store.ts";
import { StoreError } from "../store/store-error.ts";

/*
 * A rejected release: `rejected/<name>` in the store, written by `egp release reject` and signed by
 * the store as it is written (signing.ts). The release gate refuses every plan of an environment
 * that names it. A rejection is believed in the safe direction only: one whose signature is not
 * trusted still refuses, and says so.
 */

export const rejectedKey = (name: string) => `rejected/${name}`;

export const Rejection = z.strictObject({
  name: z.string(),
  reason: z.string(),
  at: z.string(),
  actor: z.string(),
  runUrl: z.string().nullable(),
  /** The audit record of the rejection (audit-stamp.ts); absent in records of earlier versions. */
  audit: z.number().int().positive().optional(),
});
export type Rejection = z.infer<typeof Rejection>;

export interface ReadRejection extends Rejection {
  /** Why its signature can't be believed; undefined when it can. */
  unauthenticated?: string;
}

/** Records the rejection once; the first rejection of a release stands. */
export async function recordRejection(
  store: ReleaseStore,
  rejection: Rejection,
): Promise<{ rejection: ReadRejection; already: boolean }> {
  try {
    await store.putRecord(rejectedKey(rejection.name), rejection, { createOnly: true });
    return { rejection, already: false };
  } catch (error) {
    if (!(error instanceof StoreError && error.code === "EGP_STORE_EXISTS")) throw error;
    const earlier = await rejectionOf(store, rejection.name);
    if (!earlier) throw error;
    return { rejection: earlier, already: true };
  }
}

/** The release's rejection, if it has one. */
export async function rejectionOf(store: ReleaseStore, name: string): Promise<ReadRejection | undefined> {
  const key = rejectedKey(name);
  const value = await store.getRecord(key);
  if (value === undefined) return undefined;
  const parsed = Rejection.safeParse(withoutSignature(value));
  if (!parsed.success) {
    const reason = (value as { reason?: unknown } | null)?.reason;
    return {
      name,
      reason: typeof reason === "string" ? reason : "(unreadable record)",
      at: "",
      actor: "",
      runUrl: null,
      unauthenticated: "it is not a rejection record egp wrote",
    };
  }
  const trust = trustOf(store, key, value);
  return trust.trusted ? parsed.data : { ...parsed.data, unauthenticated: distrust(trust) };
}

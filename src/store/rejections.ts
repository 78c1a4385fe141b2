import { z } from "zod";
import { type LocalKey, localKey } from "../io/local-key.ts";
import { StoreError } from "./error-codes.ts";
import { Seal, sealProblem, sealRecord } from "./record-seal.ts";
import type { ReleaseStore } from "./store.ts";

/*
 * A rejected release: `rejected/<name>` in the store, written by `egp release reject`. The release
 * gate refuses every plan of an environment that names it. A rejection is only ever believed in
 * the safe direction: one that fails its seal still refuses, and says it is unauthenticated.
 */

const PURPOSE = "egp release rejection";
export const rejectedKey = (name: string) => `rejected/${name}`;

export const Rejection = z.strictObject({
  name: z.string(),
  reason: z.string(),
  at: z.string(),
  actor: z.string(),
  runUrl: z.string().nullable(),
  seal: Seal,
});
export type Rejection = z.infer<typeof Rejection>;

export interface ReadRejection extends Rejection {
  /** Why its seal can't be believed; undefined when it holds. */
  unauthenticated?: string;
}

/** Records the rejection once; the first rejection of a release stands. */
export async function rejectRelease(
  store: ReleaseStore,
  rejection: Omit<Rejection, "seal">,
  key: LocalKey = localKey(),
): Promise<{ rejection: ReadRejection; already: boolean }> {
  try {
    const record = sealRecord(rejection, PURPOSE, key);
    await store.putRecord(rejectedKey(rejection.name), record, { createOnly: true });
    return { rejection: record, already: false };
  } catch (error) {
    if (!(error instanceof StoreError && error.code === "EGP_STORE_EXISTS")) throw error;
    const earlier = await rejectionOf(store, rejection.name, key);
    if (!earlier) throw error;
    return { rejection: earlier, already: true };
  }
}

/** The release's rejection, if it has one. */
export async function rejectionOf(
  store: ReleaseStore,
  name: string,
  key: LocalKey = localKey(),
): Promise<ReadRejection | undefined> {
  const value = await store.getRecord(rejectedKey(name));
  if (value === undefined) return undefined;
  const parsed = Rejection.safeParse(value);
  if (!parsed.success) {
    const reason = (value as { reason?: unknown } | null)?.reason;
    return {
      name,
      reason: typeof reason === "string" ? reason : "(unreadable record)",
      at: "",
      actor: "",
      runUrl: null,
      seal: { key: "", tag: "" },
      unauthenticated: "it is not a rejection record egp wrote",
    };
  }
  const problem = sealProblem(parsed.data, PURPOSE, key);
  return problem ? { ...parsed.data, unauthenticated: problem } : parsed.data;
}

import type { ReleaseStore } from "./store.ts";

/*
 * The records that a change leaves besides its audit record (a release, a verification, an
 * install's history, a rejection) name the audit record that tells of that change, `audit:
 * <sequence>`: the one after the chain's head when they are written. Removing audit records they
 * point at is then a break of the chain (release/audit.ts), even with the whole `audit/` folder gone.
 */

export const AUDIT_PREFIX = "audit";
export const AUDIT_HEAD_KEY = "audit-head";
/** Where the records that name their audit record live. */
export const AUDITED_PREFIXES = ["releases", "verified", "history", "rejected"] as const;
export const AUDIT_FIELD = "audit";

const DIGITS = 12;
export const auditKey = (sequence: number) => `${AUDIT_PREFIX}/${String(sequence).padStart(DIGITS, "0")}`;
export const sequenceOf = (key: string) => {
  const tail = key.slice(AUDIT_PREFIX.length + 1);
  return /^\d{12}$/.test(tail) ? Number(tail) : Number.NaN;
};

export const isAudited = (key: string) =>
  (AUDITED_PREFIXES as readonly string[]).includes(key.split("/")[0] ?? "");

/** The sequence the next audit record takes, as the head (or, before there is one, the listing) says. */
export async function nextAuditSequence(store: ReleaseStore): Promise<number> {
  const head = (await store.getRecord(AUDIT_HEAD_KEY).catch(() => undefined)) as
    | { sequence?: unknown }
    | undefined;
  const fromHead = typeof head?.sequence === "number" ? head.sequence : 0;
  const last = (await store.listRecords(AUDIT_PREFIX)).map(sequenceOf).filter(Number.isInteger).at(-1) ?? 0;
  return Math.max(fromHead, last) + 1;
}

/** The record with the audit sequence it is made under, unless it names one already (a rewrite). */
export async function stamped(store: ReleaseStore, key: string, value: unknown): Promise<unknown> {
  if (!isAudited(key) || typeof value !== "object" || value === null || Array.isArray(value)) return value;
  if (AUDIT_FIELD in value) return value;
  return { ...value, [AUDIT_FIELD]: await nextAuditSequence(store) };
}

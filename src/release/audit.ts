import { createHash } from "node:crypto";
import stringify from "safe-stable-stringify";
import { z } from "zod";
import { AUDIT_PREFIX, auditKey, sequenceOf } from "../store/audit-stamp.ts";
import { withoutSignature } from "../store/signing.ts";
import type { ReleaseStore } from "../store/store.ts";
import { StoreError } from "../store/store-error.ts";
import { ACTOR_SOURCES } from "./actor.ts";
import { type AuditHead, highWater, raiseHighWater, readHead, writeHead } from "./audit-head.ts";

/*
 * The audit trail: one record per change egp makes or refuses to make on an auditor's behalf
 * (release create, apply, rollback, reject, verification, a freeze exception used), kept in the
 * release store under `audit/<sequence>`. Each record holds the sha256 of the one before it, so a
 * record edited, removed or put in between breaks the chain at that link; the store's create-once
 * write gives two writers at the same moment distinct places in it.
 */

export { AUDIT_PREFIX, auditKey } from "../store/audit-stamp.ts";

export const AUDIT_ACTIONS = [
  "release-create",
  "apply",
  "rollback",
  "reject",
  "verify",
  /** An apply about to write to its instance; its result record names it (`started`). */
  "apply-started",
  "freeze-exception",
  "acknowledge-break",
] as const;

export const AuditChange = z.strictObject({ kind: z.string(), name: z.string(), action: z.string() });
export type AuditChange = z.infer<typeof AuditChange>;

/** What a caller tells of one event; the chain's fields are added when it is appended. */
export const AuditEntry = z.strictObject({
  action: z.enum(AUDIT_ACTIONS),
  at: z.string(),
  actor: z.string(),
  runUrl: z.string().nullable(),
  environment: z.string().nullable(),
  /** The instance the environment file names: its url and InstanceName. */
  instance: z.strictObject({ url: z.string(), name: z.string() }).nullable(),
  /** sha256 of the plan applied (its canonical JSON), when a plan was. */
  planSha256: z.string().nullable(),
  release: z
    .strictObject({
      name: z.string(),
      packages: z.array(z.strictObject({ name: z.string(), sha256: z.string() })),
    })
    .nullable(),
  changes: z.array(AuditChange),
  /** `closed`: the result of an apply that wrote none, as the next apply found the live state. */
  result: z.enum(["verified", "failed", "refused", "recorded", "closed"]),
  /** The failing steps, or the refusal's reason. */
  failures: z.array(z.string()),
  /** A freeze exception that let the change through. */
  exception: z.strictObject({ file: z.string(), reason: z.string(), until: z.string() }).nullable(),
  reason: z.string().nullable(),
  /** An acknowledge-break record: the breaks it acknowledges, by the key each is at. */
  acknowledges: z.array(z.string()).optional(),
  /** A record appended to a broken chain (a rollback goes ahead): the break, in words. */
  chainBroken: z.string().optional(),
  /** The `apply-started` record this record is the result of. */
  started: z.number().int().positive().optional(),
  /** Where `actor` came from: EGP_ACTOR, GitHub's run (who started it), or the OS user. */
  actorSource: z.enum(ACTOR_SOURCES).optional(),
  /** Who approved the run's environment (GitHub's run approvals), as CI passes them: recorded, not matched. */
  approvers: z.array(z.string()).optional(),
  /**
   * The verdict of each verification of an install this apply ran (`converged`, `converged after
   * re-install`, `diverged`), by step, with the installs it took.
   */
  verdicts: z
    .array(z.strictObject({ step: z.string(), verdict: z.string(), passes: z.number().int() }))
    .optional(),
  /** The environment's checks of behaviour after the install: each one's result, and a probe's record ids. */
  checks: z
    .array(
      z.strictObject({
        check: z.string(),
        passed: z.boolean(),
        found: z.string(),
        probes: z.array(z.number().int()).optional(),
      }),
    )
    .optional(),
});
export type AuditEntry = z.infer<typeof AuditEntry>;

/** A record as stored: the store signs it as it is written (signing.ts), and it is checked on read. */
export const AuditRecord = AuditEntry.extend({
  sequence: z.number().int().positive(),
  /** sha256 of the previous record's canonical JSON as stored, its signature included; null for the first. */
  previous: z.string().nullable(),
});
export type AuditRecord = z.infer<typeof AuditRecord>;

export function recordDigest(record: unknown): string {
  return createHash("sha256")
    .update(stringify(record) ?? "null")
    .digest("hex");
}

/** Appends an entry after the last record; a writer that loses the race for a place takes the next. */
export async function appendAudit(
  store: ReleaseStore,
  entry: AuditEntry,
  options: { tries?: number; after?: number } = {},
): Promise<AuditRecord> {
  const tries = options.tries ?? 5;
  for (let attempt = 1; ; attempt += 1) {
    const keys = await store.listRecords(AUDIT_PREFIX);
    const { head } = await readHead(store);
    const last = keys.map(sequenceOf).filter(Number.isInteger).at(-1) ?? 0;
    // Past every number the chain has had, so an append after a removal never reuses one.
    const sequence = Math.max(last, head?.sequence ?? 0, await highWater(store), options.after ?? 0) + 1;
    const previous = await digestAt(store, sequence - 1, head);
    const record: AuditRecord = { ...AuditEntry.parse(entry), sequence, previous };
    try {
      await store.putRecord(auditKey(sequence), record, { createOnly: true });
    } catch (error) {
      if (!(error instanceof StoreError && error.code === "EGP_STORE_EXISTS") || attempt >= tries)
        throw error;
      continue;
    }
    const digest = recordDigest(await store.getRecord(auditKey(sequence)));
    const rejected = await rejectedAfter(store, head, last);
    if (entry.action === "reject" && entry.release && !rejected.includes(entry.release.name))
      rejected.push(entry.release.name);
    await writeHead(store, { sequence, digest, rejected });
    await raiseHighWater(store, sequence);
    return record;
  }
}

/** The digest of record `sequence` as stored; the head's when that record can't be read; null for none. */
async function digestAt(store: ReleaseStore, sequence: number, head: AuditHead | undefined) {
  if (sequence < 1) return null;
  const value = await store.getRecord(auditKey(sequence)).catch(() => undefined);
  if (value !== undefined) return recordDigest(value);
  return head?.sequence === sequence ? head.digest : null;
}

/**
 * The rejected names the new head carries: the head's, with those of reject records it has not
 * taken in yet (a head left behind by a crash; the whole chain for a store that had no head).
 */
async function rejectedAfter(store: ReleaseStore, head: AuditHead | undefined, last: number) {
  const names = [...(head?.rejected ?? [])];
  for (let sequence = (head?.sequence ?? 0) + 1; sequence <= last; sequence += 1) {
    const value = withoutSignature(await store.getRecord(auditKey(sequence)).catch(() => undefined));
    const parsed = AuditRecord.safeParse(value);
    const name = parsed.success && parsed.data.action === "reject" ? parsed.data.release?.name : undefined;
    if (name && !names.includes(name)) names.push(name);
  }
  return names;
}

export interface AuditFilter {
  environment?: string;
  /** Inclusive bounds, as instants. */
  since?: Date;
  until?: Date;
}

export function filterAudit(records: readonly AuditRecord[], filter: AuditFilter): AuditRecord[] {
  return records.filter((record) => {
    const at = Date.parse(record.at);
    if (filter.environment !== undefined && record.environment !== filter.environment) return false;
    if (filter.since && at < filter.since.getTime()) return false;
    return !(filter.until && at > filter.until.getTime());
  });
}

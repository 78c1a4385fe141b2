import { createHash } from "node:crypto";
import stringify from "safe-stable-stringify";
import { z } from "zod";
import { distrust, trustOf, withoutSignature } from "../store/signing.ts";
import type { ReleaseStore } from "../store/store.ts";
import { StoreError } from "../store/store-error.ts";
import { ACTOR_SOURCES } from "./actor.ts";

/*
 * The audit trail: one record per change egp makes or refuses to make on an auditor's behalf
 * (release create, apply, rollback, reject, verification, a freeze exception used), kept in the
 * release store under `audit/<sequence>`. Each record holds the sha256 of the one before it, so a
 * record edited, removed or put in between breaks the chain at that link; the store's create-once
 * write gives two writers at the same moment distinct places in it.
 */

export const AUDIT_PREFIX = "audit";
const DIGITS = 12;
export const auditKey = (sequence: number) => `${AUDIT_PREFIX}/${String(sequence).padStart(DIGITS, "0")}`;

export const AUDIT_ACTIONS = [
  "release-create",
  "apply",
  "rollback",
  "reject",
  "verify",
  "freeze-exception",
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
  result: z.enum(["verified", "failed", "refused", "recorded"]),
  /** The failing steps, or the refusal's reason. */
  failures: z.array(z.string()),
  /** A freeze exception that let the change through. */
  exception: z.strictObject({ file: z.string(), reason: z.string(), until: z.string() }).nullable(),
  reason: z.string().nullable(),
  /** Where `actor` came from: EGP_ACTOR, GitHub's run (who started it), or the OS user. */
  actorSource: z.enum(ACTOR_SOURCES).optional(),
  /** Who approved the run's environment (GitHub's run approvals), as CI passes them: recorded, not matched. */
  approvers: z.array(z.string()).optional(),
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

const sequenceOf = (key: string) => Number(key.slice(AUDIT_PREFIX.length + 1));

/** Appends an entry after the last record; a writer that loses the race for a place takes the next. */
export async function appendAudit(store: ReleaseStore, entry: AuditEntry, tries = 5): Promise<AuditRecord> {
  for (let attempt = 1; ; attempt += 1) {
    const keys = await store.listRecords(AUDIT_PREFIX);
    const last = keys.at(-1);
    const previous = last === undefined ? null : recordDigest(await store.getRecord(last));
    const sequence = last === undefined ? 1 : sequenceOf(last) + 1;
    const record: AuditRecord = { ...AuditEntry.parse(entry), sequence, previous };
    try {
      await store.putRecord(auditKey(sequence), record, { createOnly: true });
      return record;
    } catch (error) {
      if (!(error instanceof StoreError && error.code === "EGP_STORE_EXISTS") || attempt >= tries)
        throw error;
    }
  }
}

export interface AuditChain {
  records: AuditRecord[];
  /** The first link that does not hold, and why; undefined when the whole chain holds. */
  broken?: { key: string; why: string };
}

/** Reads the whole trail in order and checks every link. */
export async function readAudit(store: ReleaseStore): Promise<AuditChain> {
  const keys = await store.listRecords(AUDIT_PREFIX);
  const records: AuditRecord[] = [];
  let previous: string | null = null;
  for (const [index, at] of keys.entries()) {
    const value = await store.getRecord(at);
    const trust = trustOf(store, at, value);
    const parsed = AuditRecord.safeParse(withoutSignature(value));
    const why = !parsed.success
      ? `not an audit record (${parsed.error.issues[0]?.path.join(".") || "record"}: ${parsed.error.issues[0]?.message})`
      : !trust.trusted
        ? distrust(trust)
        : linkProblem(at, parsed.data, index + 1, previous, keys[index - 1]);
    if (why || !parsed.success) return { records, broken: { key: at, why: why ?? "unreadable" } };
    records.push(parsed.data);
    previous = recordDigest(value);
  }
  return { records };
}

function linkProblem(
  key: string,
  record: AuditRecord,
  expected: number,
  previous: string | null,
  previousKey: string | undefined,
): string | undefined {
  if (sequenceOf(key) !== expected || record.sequence !== expected)
    return `it is record ${record.sequence} at ${key}, where record ${expected} belongs (one was removed or put in)`;
  if (record.previous !== previous)
    return previousKey
      ? `it names ${record.previous ?? "no record"} before it, but ${previousKey} hashes to ${previous} (that record was edited)`
      : "it is the first record, but names one before it";
  return undefined;
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

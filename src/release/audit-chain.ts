import { EgpError } from "../errors/index.ts";
import {
  AUDIT_FIELD,
  AUDIT_HEAD_KEY,
  AUDIT_PREFIX,
  AUDITED_PREFIXES,
  auditKey,
  sequenceOf,
} from "../store/audit-stamp.ts";
import { distrust, type Trust, trustOf, withoutSignature } from "../store/signing.ts";
import type { ReleaseStore } from "../store/store.ts";
import { type AuditRecord, AuditRecord as AuditRecordSchema, recordDigest } from "./audit.ts";
import { highWater, type ReadHead, raiseHighWater, readHead } from "./audit-head.ts";
import { rejectedKey } from "./rejections.ts";

/*
 * Reading the audit chain back and judging it: every record present, in its place, signed, linked
 * to the one before; nothing the head, this machine's high-water mark, or a record naming its
 * audit record says was there missing; every rejection the chain records still in the store. Each
 * break is reported by the key it is at, and reading goes on past it, so one bad record does not
 * hide the rest. A break an `acknowledge-break` record names is listed as acknowledged.
 */

export interface AuditBreak {
  /** The store key the break is at: the first missing or bad record, `audit-head`, `rejected/<name>`. */
  key: string;
  why: string;
  /** The sequence of the acknowledge-break record that acknowledged it. */
  acknowledgedBy?: number;
}

export interface AuditChain {
  records: AuditRecord[];
  /** The first break no record acknowledges; undefined when there is none. */
  broken?: { key: string; why: string };
  /** Every break, acknowledged or not, in the order found. */
  breaks: AuditBreak[];
  /** Records signed by a key this machine does not trust: intact as far as can be told, but not believed. */
  unverifiable: { count: number; why: string[] };
  /** The highest sequence anything read says the chain reached. */
  highest: number;
}

interface Walk {
  records: AuditRecord[];
  breaks: AuditBreak[];
  unverifiable: Map<string, number>;
  digests: Map<number, string>;
  last: number;
}

const missing = (from: number, to: number) =>
  from === to ? "it is missing" : `it and the records after it up to ${auditKey(to)} are missing`;

/** A record not believed: a break, or (signed by a key not trusted here) one that cannot be verified here. */
function untrusted(walk: Walk, key: string, trust: Trust & { trusted: false }): boolean {
  if (trust.why !== "untrusted-key") {
    walk.breaks.push({ key, why: distrust(trust) });
    return false;
  }
  const why = distrust(trust);
  // The head is counted only when it is all there is: "1 record" should mean one audit record.
  const counted = key === AUDIT_HEAD_KEY && walk.unverifiable.size > 0 ? 0 : 1;
  walk.unverifiable.set(why, (walk.unverifiable.get(why) ?? 0) + counted);
  return true;
}

/** One record of the walk: its break, or its digest (undefined when the next link can't be checked). */
async function step(
  store: ReleaseStore,
  walk: Walk,
  key: string,
  previous: string | null | undefined,
): Promise<string | undefined> {
  let value: unknown;
  try {
    value = await store.getRecord(key);
  } catch (error) {
    walk.breaks.push({ key, why: `it cannot be read: ${(error as Error).message}` });
    return undefined;
  }
  const parsed = AuditRecordSchema.safeParse(withoutSignature(value));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    walk.breaks.push({
      key,
      why: `not an audit record (${issue?.path.join(".") || "record"}: ${issue?.message})`,
    });
    return undefined;
  }
  const record = parsed.data;
  // Before the signature (which covers the key, so a moved record fails it too): the plainer account.
  const at = sequenceOf(key);
  if (record.sequence !== at) {
    walk.breaks.push({
      key,
      why: `it is record ${record.sequence} at ${key}, where record ${at} belongs (one was removed or put in)`,
    });
    return undefined;
  }
  const trust = trustOf(store, key, value);
  if (!trust.trusted && !untrusted(walk, key, trust)) return undefined;
  if (previous !== undefined && record.previous !== previous) {
    walk.breaks.push({
      key,
      why:
        previous === null
          ? "it is the first record, but names one before it"
          : `it names ${record.previous ?? "no record"} before it, but ${auditKey(at - 1)} hashes to ${previous} (that record was edited)`,
    });
  }
  if (trust.trusted) walk.records.push(record);
  const digest = recordDigest(value);
  walk.digests.set(at, digest);
  return digest;
}

async function walkChain(store: ReleaseStore): Promise<Walk> {
  const walk: Walk = { records: [], breaks: [], unverifiable: new Map(), digests: new Map(), last: 0 };
  let previous: string | null | undefined = null;
  for (const key of await store.listRecords(AUDIT_PREFIX)) {
    const at = sequenceOf(key);
    if (!Number.isInteger(at) || at < 1) {
      walk.breaks.push({ key, why: "it is not a place in the chain (records are audit/<12 digits>)" });
      continue;
    }
    if (at > walk.last + 1) {
      walk.breaks.push({ key: auditKey(walk.last + 1), why: missing(walk.last + 1, at - 1) });
      previous = undefined;
    }
    walk.last = at;
    previous = await step(store, walk, key, previous);
  }
  return walk;
}

function checkHead(walk: Walk, read: ReadHead): number {
  if (read.unreadable) walk.breaks.push({ key: AUDIT_HEAD_KEY, why: read.unreadable });
  const { head, trust } = read;
  if (!head || !trust) return 0;
  if (!trust.trusted && !untrusted(walk, AUDIT_HEAD_KEY, trust)) return 0;
  if (head.sequence > walk.last) {
    walk.breaks.push({
      key: auditKey(walk.last + 1),
      why: `${missing(walk.last + 1, head.sequence)} (the head, audit-head, names record ${head.sequence})`,
    });
  } else if (head.digest !== null && head.sequence > 0) {
    const digest = walk.digests.get(head.sequence);
    if (digest !== undefined && digest !== head.digest)
      walk.breaks.push({
        key: auditKey(head.sequence),
        why: "it is not the record the head, audit-head, names (it was replaced)",
      });
  }
  return head.sequence;
}

/** Signed records that name their audit record: the highest sequence named, and which record names it. */
async function namedSequences(store: ReleaseStore): Promise<{ sequence: number; by?: string }> {
  let highest: { sequence: number; by?: string } = { sequence: 0 };
  for (const prefix of AUDITED_PREFIXES) {
    for (const key of await store.listRecords(prefix)) {
      const value = await store.getRecord(key).catch(() => undefined);
      const named = (value as Record<string, unknown> | undefined)?.[AUDIT_FIELD];
      // Only a record egp signed counts: anyone who can write to the store could write a number.
      if (typeof named !== "number" || named <= highest.sequence) continue;
      if (trustOf(store, key, value).trusted) highest = { sequence: named, by: key };
    }
  }
  return highest;
}

async function checkRejections(store: ReleaseStore, walk: Walk, read: ReadHead): Promise<void> {
  const recorded = new Map<string, string>();
  for (const name of read.head?.rejected ?? []) recorded.set(name, "the head, audit-head, names it");
  for (const record of walk.records)
    if (record.action === "reject" && record.release)
      recorded.set(record.release.name, `${auditKey(record.sequence)} records the rejection`);
  for (const [name, by] of recorded) {
    const key = rejectedKey(name);
    if ((await store.getRecord(key).catch(() => null)) === undefined)
      walk.breaks.push({ key, why: `it is missing, but ${by}` });
  }
}

function acknowledge(walk: Walk): void {
  for (const record of walk.records) {
    if (record.action !== "acknowledge-break") continue;
    for (const item of walk.breaks)
      if (item.acknowledgedBy === undefined && record.acknowledges?.includes(item.key))
        item.acknowledgedBy = record.sequence;
  }
}

/**
 * Reads the whole trail in order and checks every link and every anchor. `references: false`
 * skips reading the records that name their audit record, unless the head is gone (then they are
 * what is left to tell the chain was there).
 */
export async function readAudit(
  store: ReleaseStore,
  options: { references?: boolean } = {},
): Promise<AuditChain> {
  const walk = await walkChain(store);
  const read = await readHead(store);
  const headAt = checkHead(walk, read);
  let reached = Math.max(walk.last, headAt);
  const seen = await highWater(store);
  if (seen > reached) {
    walk.breaks.push({
      key: auditKey(reached + 1),
      why: `${missing(reached + 1, seen)} (this machine has seen record ${seen} of this store)`,
    });
    reached = seen;
  }
  if (options.references !== false || !read.head) {
    const named = await namedSequences(store);
    // The record right after the last is a change still being recorded (or whose run ended before
    // its record): the next append takes that number. Past it, records are missing.
    if (named.sequence > reached + 1)
      walk.breaks.push({
        key: auditKey(reached + 1),
        why: `${missing(reached + 1, named.sequence - 1)} (${named.by} names record ${named.sequence})`,
      });
    else if (!read.head && !read.unreadable && named.sequence > 0 && walk.last > 0)
      walk.breaks.push({
        key: AUDIT_HEAD_KEY,
        why: `it is missing, but ${named.by} names audit record ${named.sequence} (the head was removed)`,
      });
    reached = Math.max(reached, named.sequence);
  }
  await checkRejections(store, walk, read);
  acknowledge(walk);
  const trustedLast = walk.records.at(-1)?.sequence ?? 0;
  await raiseHighWater(store, read.trust?.trusted ? Math.max(trustedLast, headAt) : trustedLast);
  const open = walk.breaks.find((b) => b.acknowledgedBy === undefined);
  const count = [...walk.unverifiable.values()].reduce((a, b) => a + b, 0);
  return {
    records: walk.records,
    breaks: walk.breaks,
    ...(open ? { broken: { key: open.key, why: open.why } } : {}),
    unverifiable: { count, why: [...walk.unverifiable.keys()] },
    highest: reached,
  };
}

/** One line for a break: where, and why. */
export const breakLine = (item: Pick<AuditBreak, "key" | "why">) => `broken at ${item.key}: ${item.why}`;

/**
 * Refuses, before anything is written, a change on a store whose audit chain has a break no
 * record acknowledges: the record of this change would sit on a trail that can't be believed.
 */
export async function assertAuditWhole(store: ReleaseStore): Promise<void> {
  const chain = await readAudit(store, { references: false });
  if (!chain.broken) return;
  const more = chain.breaks.filter((b) => b.acknowledgedBy === undefined).length - 1;
  throw new EgpError(
    "EGP_AUDIT_BROKEN",
    `the audit chain is ${breakLine(chain.broken)}${more > 0 ? ` (and ${more} more)` : ""}; egp writes nothing on a broken chain: find out what happened (egp audit), then record it with 'egp audit acknowledge-break --reason TEXT'`,
  );
}

/** The open breaks of the chain, in one line each, for a rollback's record (it goes ahead). */
export async function openBreaks(store: ReleaseStore): Promise<string | undefined> {
  const chain = await readAudit(store, { references: false }).catch(() => undefined);
  const open = chain?.breaks.filter((b) => b.acknowledgedBy === undefined) ?? [];
  return open.length ? open.map(breakLine).join("; ") : undefined;
}

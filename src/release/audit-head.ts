import { createHash } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { localKey } from "../io/local-key.ts";
import { AUDIT_HEAD_KEY } from "../store/audit-stamp.ts";
import { SignedStore, type Trust, trustOf, withoutSignature } from "../store/signing.ts";
import type { ReleaseStore } from "../store/store.ts";

/*
 * What anchors the audit chain beyond its records:
 * - the head, `audit-head` in the store, signed like every record and rewritten after each append:
 *   the last sequence, that record's digest, and the names of the releases rejected so far (so the
 *   release gate reads one record, not the chain);
 * - the high-water mark, the highest sequence this machine has seen of the store, kept in `.egp/`
 *   sealed with the local key, so that a head put back below it is caught here.
 */

export const AuditHead = z.object({
  sequence: z.number().int().nonnegative(),
  digest: z.string().nullable(),
  rejected: z.array(z.string()),
});
export type AuditHead = z.infer<typeof AuditHead>;

export interface ReadHead {
  head?: AuditHead;
  trust?: Trust;
  /** Why a record under the head's key is not a head. */
  unreadable?: string;
}

export async function readHead(store: ReleaseStore): Promise<ReadHead> {
  let value: unknown;
  try {
    value = await store.getRecord(AUDIT_HEAD_KEY);
  } catch (error) {
    return { unreadable: (error as Error).message };
  }
  if (value === undefined) return {};
  const parsed = AuditHead.safeParse(withoutSignature(value));
  if (!parsed.success) return { unreadable: "it is not an audit head egp wrote" };
  return { head: parsed.data, trust: trustOf(store, AUDIT_HEAD_KEY, value) };
}

/** Moves the head forward; a head another writer moved further already stays. */
export async function writeHead(store: ReleaseStore, head: AuditHead): Promise<void> {
  const { head: now } = await readHead(store);
  if (now && now.sequence > head.sequence) return;
  await store.putRecord(AUDIT_HEAD_KEY, head);
}

/**
 * The releases the head names as rejected: believed in the safe direction, so a head whose
 * signature this machine cannot check still refuses what it names. One read.
 */
export async function rejectedByHead(store: ReleaseStore): Promise<readonly string[]> {
  return (await readHead(store)).head?.rejected ?? [];
}

const SEAL_PURPOSE = "audit high-water";
const HighWater = z.object({ store: z.string(), sequence: z.number().int().nonnegative(), seal: z.string() });

function highWaterFile(store: ReleaseStore): string | undefined {
  if (!(store instanceof SignedStore) || !store.localState) return undefined;
  const id = createHash("sha256").update(store.location).digest("hex").slice(0, 32);
  return join(store.localState, "audit-seen", `${id}.json`);
}

const sealed = (location: string, sequence: number) => `${location}\0${sequence}`;

/** The highest sequence this machine has seen of the store; 0 when none (or its seal does not hold). */
export async function highWater(store: ReleaseStore): Promise<number> {
  const file = highWaterFile(store);
  if (!file) return 0;
  try {
    const mark = HighWater.parse(JSON.parse(await readFile(file, "utf8")));
    const ok =
      mark.store === store.location &&
      localKey().check(sealed(store.location, mark.sequence), mark.seal, SEAL_PURPOSE);
    return ok ? mark.sequence : 0;
  } catch {
    return 0;
  }
}

/** Raises the mark to `sequence`; never lowers it. A mark that can't be written is left as it was. */
export async function raiseHighWater(store: ReleaseStore, sequence: number): Promise<void> {
  const file = highWaterFile(store);
  if (!file || sequence <= (await highWater(store))) return;
  const temp = `${file}.${process.pid}.tmp`;
  try {
    const seal = localKey().seal(sealed(store.location, sequence), SEAL_PURPOSE);
    const body = `${JSON.stringify({ store: store.location, sequence, seal })}\n`;
    await mkdir(join(file, ".."), { recursive: true, mode: 0o700 });
    await writeFile(temp, body, { mode: 0o600 });
    await rename(temp, file);
  } catch {
    await rm(temp, { force: true });
  }
}

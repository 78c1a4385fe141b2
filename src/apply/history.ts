import { existsSync } from "node:fs";
import {
  distrust,
  historyKey,
  historyPrefix,
  type ReleaseStore,
  StoreError,
  type Trust,
  trustOf,
  withoutSignature,
} from "../store/index.ts";
import { artifactPath } from "./artifacts.ts";
import { ReleaseError, ReleaseRecord, readRelease, writeRelease } from "./releases.ts";

/*
 * The install history in the release store: `history/<env>/<id>`, one entry per install (the
 * records of ./releases.ts), and the snapshot each refers to as a file by its sha256. `.egp/` keeps
 * a copy as a cache; the store is what another machine (a CI runner, a fresh clone) reads, so that
 * `egp history` and `egp rollback` work wherever the repository and the store are.
 */

/** Stores the entry and the snapshot file it names (the store checks and keeps it by sha256). */
export async function publishInstall(
  store: ReleaseStore,
  stateDir: string,
  record: ReleaseRecord,
): Promise<void> {
  if (record.snapshot && !(await store.hasFile(record.snapshot.digest))) {
    const file = artifactPath(stateDir, record.snapshot.digest);
    const { digest } = await store.putFile(file);
    if (digest !== record.snapshot.digest)
      throw new ReleaseError(
        "EGP_RELEASE_UNUSABLE",
        `the snapshot ${file} changed since it was taken (its sha256 is now ${digest}); not stored`,
      );
  }
  await store.putRecord(historyKey(record.environment, record.id), record);
}

function parsed(key: string, value: unknown, env: string): ReleaseRecord {
  const result = ReleaseRecord.safeParse(value);
  const why = result.success
    ? result.data.environment === env
      ? undefined
      : `it names ${result.data.environment}`
    : `${result.error.issues[0]?.path.join(".") || "record"}: ${result.error.issues[0]?.message}`;
  if (why || !result.success)
    throw new ReleaseError("EGP_RELEASE_UNUSABLE", `${key} in the store is not an install record (${why})`);
  return result.data;
}

/** One install in the store, and whether its signature is one this run believes. */
export interface HistoryEntry {
  record: ReleaseRecord;
  trust: Trust;
}

/** Every install of the environment in the store, signed or not, newest first (by when it was asked for). */
export async function readHistory(store: ReleaseStore, env: string): Promise<HistoryEntry[]> {
  const keys = await store.listRecords(historyPrefix(env));
  const entries = await Promise.all(
    keys.map(async (key) => {
      const value = await store.getRecord(key);
      if (value === undefined) return undefined;
      return { record: parsed(key, withoutSignature(value), env), trust: trustOf(store, key, value) };
    }),
  );
  return entries
    .filter((e): e is HistoryEntry => e !== undefined)
    .sort((a, b) =>
      a.record.startedAt < b.record.startedAt ? 1 : a.record.startedAt > b.record.startedAt ? -1 : 0,
    );
}

/**
 * The environment's installs signed by a key this run trusts, newest first: what a new install's
 * snapshot and the wait for a started install go by. A record anyone with write access to the store
 * could have made is never one of them.
 */
export async function listHistory(store: ReleaseStore, env: string): Promise<ReleaseRecord[]> {
  return (await readHistory(store, env)).filter((e) => e.trust.trusted).map((e) => e.record);
}

/**
 * The install `egp rollback` undoes, from the store: the one named, or the newest; it must be signed
 * by a trusted key and have a snapshot. A newest record that is not signed is refused, not skipped:
 * skipping it could roll back to an older install than the one on the target.
 */
export async function historyToRollBack(
  store: ReleaseStore,
  env: string,
  id?: string,
): Promise<ReleaseRecord> {
  const history = await readHistory(store, env);
  const entry = id === undefined ? history[0] : history.find((e) => e.record.id === id);
  if (!entry) {
    const known = history.map((e) => e.record.id).join(", ");
    throw new ReleaseError(
      "EGP_NO_RELEASE",
      id === undefined
        ? `no install of ${env} to roll back: the store ${store.location} has no history of ${env}`
        : `no install ${id} of ${env}${known ? ` (known: ${known})` : ""}; see 'egp history --env ${env}'`,
    );
  }
  const { record: release, trust } = entry;
  if (!trust.trusted)
    throw new ReleaseError(
      "EGP_RECORD_UNTRUSTED",
      `install ${release.id} of ${env} in the store ${store.location} is not used: ${distrust(trust)}; see 'egp history --env ${env}'`,
    );
  if (!release.snapshot)
    throw new ReleaseError(
      "EGP_RELEASE_UNUSABLE",
      `install ${release.id} of ${env} has no snapshot (it was off, or none of its objects existed on ${env} before), so there is nothing to roll back to`,
    );
  return release;
}

/**
 * The snapshot a new install of `digest` must record: the one taken before the first install of the
 * same package bytes, while the environment's newest install of that package is of those bytes and
 * was never rolled back. A run that retried after a crash during the install takes its snapshot of a
 * target the first install may already have changed; rollback must still go back before it.
 */
export function firstSnapshot(
  history: readonly ReleaseRecord[],
  packageName: string,
  digest: string,
): ReleaseRecord["snapshot"] | undefined {
  let first: ReleaseRecord | undefined;
  for (const record of history) {
    if (record.package.name !== packageName) continue;
    if (record.package.digest !== digest || record.rollbacks.length > 0) break;
    first = record;
  }
  return first?.snapshot ?? undefined;
}

/**
 * Brings an install's record and snapshot into the local cache (a machine that never promoted):
 * the snapshot is fetched from the store, which checks its sha256.
 */
export async function cacheInstall(
  store: ReleaseStore,
  stateDir: string,
  record: ReleaseRecord,
): Promise<void> {
  if (!readRelease(stateDir, record.environment, record.id)) writeRelease(stateDir, record);
  const digest = record.snapshot?.digest;
  if (!digest || existsSync(artifactPath(stateDir, digest))) return;
  await store.getFile(digest, artifactPath(stateDir, digest)).catch((error: unknown) => {
    if (!(error instanceof StoreError)) throw error;
    throw new ReleaseError(
      "EGP_RELEASE_UNUSABLE",
      `the snapshot of install ${record.id} can't be used: ${error.message}`,
    );
  });
}

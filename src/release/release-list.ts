import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { listHistory, type ReleaseRecord } from "../apply/index.ts";
import { openProjectStore } from "../compose/project-store.ts";
import {
  ManifestError,
  parseReleaseFile,
  pipelinePlaces,
  RELEASE_NAME,
  type Repository,
  readRepository,
  releaseFilePath,
} from "../manifest/index.ts";
import { pipelineOrder } from "../plan/index.ts";
import { type ReleaseStore, releaseKey, verifiedKey } from "../store/index.ts";
import { rejectionOf } from "./rejections.ts";
import { type VerificationState, verificationState } from "./verified.ts";

/*
 * `egp release list`: every release the repository commits (`releases/*.yaml`) or the store holds
 * (`releases/<name>`), with the environments it was verified on (`verified/<name>/<env>`, of the
 * same bytes). A release is a name; an install (`egp history`) is one of its installs on one
 * environment.
 */

interface PackageBytes {
  name: string;
  sha256: string;
}

/** A verification record's parts that the views read; the gate checks the same bytes (release-gate.ts). */
export interface VerifiedRecord {
  name: string;
  environment: string;
  verifiedAt: string;
  packages: PackageBytes[];
  /** verified.ts: soaking, not verified, or (absent in older records) verified. */
  state?: string;
  soakUntil?: string;
  reason?: string;
}

export interface ReleaseListing {
  name: string;
  /** `releases/<name>.yaml` when committed; null when only the store has it. */
  file: string | null;
  /** Whether the store holds the release's record. */
  stored: boolean;
  createdAt: string | null;
  /** The environment it was built on. */
  from: string | null;
  packages: PackageBytes[];
  /**
   * The environments with a verification of these bytes, in pipeline order, but those whose
   * verified install was rolled back since (`rolledBack`).
   */
  verifiedOn: Array<{ environment: string; verifiedAt: string }>;
  /** The environments whose verification of these bytes soaks until `soakUntil` (`egp verify` after it). */
  verifying: Array<{ environment: string; soakUntil: string }>;
  /** The environments whose verification of these bytes was found not verified, and why. */
  notVerified: Array<{ environment: string; at: string; reason: string }>;
  /**
   * The environments where the release was verified and its install then rolled back, in pipeline
   * order: when, and the release installed before it (what the snapshot holds), when one was.
   */
  rolledBack: RolledBack[];
  /** Why it can't be promoted as it is (the file and the store disagree, or one is missing); null when fine. */
  problem: string | null;
  /** `egp release reject`'s record: never to be promoted; null when not rejected. */
  rejected: { by: string; at: string; reason: string; authenticated: boolean } | null;
}

export interface RolledBack {
  environment: string;
  at: string;
  /** The release the environment ran before the rolled-back install; null when none was recorded. */
  to: string | null;
}

function isVerifiedRecord(value: unknown): value is VerifiedRecord {
  const record = value as Partial<VerifiedRecord> | null | undefined;
  return (
    typeof record?.name === "string" &&
    typeof record.environment === "string" &&
    typeof record.verifiedAt === "string" &&
    Array.isArray(record.packages)
  );
}

/**
 * When the record says its release was verified on `env`; undefined for none, one of another
 * environment, or one that is soaking or not verified.
 */
export function verifiedAtOf(value: unknown, env: string): string | undefined {
  return isVerifiedRecord(value) && value.environment === env && verificationState(value).state === "verified"
    ? value.verifiedAt
    : undefined;
}

/** The record's state when it is `env`'s and not verified (soaking, not verified); else undefined. */
export function pendingOf(
  value: unknown,
  env: string,
): Exclude<VerificationState, { state: "verified" }> | undefined {
  if (!isVerifiedRecord(value) || value.environment !== env) return undefined;
  const state = verificationState(value);
  return state.state === "verified" ? undefined : state;
}

/** The release's verifications in the store, one per environment. */
export async function verificationsOfRelease(store: ReleaseStore, name: string): Promise<VerifiedRecord[]> {
  const keys = await store.listRecords(`verified/${name}`);
  const records = await Promise.all(keys.map(async (key) => ({ key, value: await store.getRecord(key) })));
  // A record under another environment's key, or another release's, is not believed.
  return records.flatMap(({ key, value }) =>
    isVerifiedRecord(value) && value.name === name && verifiedKey(name, value.environment) === key
      ? [value]
      : [],
  );
}

/**
 * The rollback of the release's verified install on `env`: the newest install of the release there
 * was rolled back at or after the verification. The release it went back to is the newest other
 * release installed before that install.
 */
export function rollbackOf(
  history: readonly ReleaseRecord[],
  release: string,
  verification: { environment: string; verifiedAt: string },
): RolledBack | undefined {
  const index = history.findIndex((r) => r.release === release && r.installedAt !== null);
  const install = history[index];
  const at = install?.rollbacks.at(-1)?.at;
  if (at === undefined || at < verification.verifiedAt) return undefined;
  const before = history
    .slice(index + 1)
    .find((r) => r.release !== undefined && r.release !== release && r.installedAt !== null);
  return { environment: verification.environment, at, to: before?.release ?? null };
}

async function rollbacksOf(
  store: ReleaseStore,
  release: string,
  verified: ReadonlyArray<{ environment: string; verifiedAt: string }>,
): Promise<RolledBack[]> {
  const found = await Promise.all(
    verified.map(async (v) => rollbackOf(await listHistory(store, v.environment), release, v)),
  );
  return found.flatMap((r) => (r ? [r] : []));
}

function samePackages(a: readonly PackageBytes[], b: readonly PackageBytes[]): boolean {
  return a.length === b.length && a.every((p) => b.some((q) => q.name === p.name && q.sha256 === p.sha256));
}

/** Every environment of the repository in pipeline order, from the files as written. */
export function environmentsInOrder(repository: Pick<Repository, "environments">): string[] {
  return pipelineOrder(pipelinePlaces(repository));
}

async function committedNames(dir: string): Promise<string[]> {
  const entries = await readdir(join(dir, "releases")).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [] as string[];
    throw error;
  });
  return entries.filter((n) => n.endsWith(".yaml")).map((n) => n.slice(0, -".yaml".length));
}

async function storedNames(store: ReleaseStore): Promise<string[]> {
  return (await store.listRecords("releases")).map((key) => key.slice("releases/".length));
}

function asStored(
  value: unknown,
): { createdAt?: string; from?: string; packages: PackageBytes[] } | undefined {
  const record = value as { createdAt?: unknown; from?: unknown; packages?: unknown } | undefined;
  if (!record || !Array.isArray(record.packages)) return undefined;
  return {
    ...(typeof record.createdAt === "string" ? { createdAt: record.createdAt } : {}),
    ...(typeof record.from === "string" ? { from: record.from } : {}),
    packages: record.packages.flatMap((p: Partial<PackageBytes>) =>
      typeof p?.name === "string" && typeof p.sha256 === "string" ? [{ name: p.name, sha256: p.sha256 }] : [],
    ),
  };
}

async function listing(
  dir: string,
  store: ReleaseStore,
  name: string,
  committed: boolean,
  order: readonly string[],
): Promise<ReleaseListing> {
  const file = committed ? releaseFilePath(name) : null;
  let problem: string | null = null;
  let fromFile: ReturnType<typeof parseReleaseFile> | undefined;
  if (file) {
    try {
      fromFile = parseReleaseFile(file, await readFile(join(dir, file), "utf8"), name);
    } catch (error) {
      if (!(error instanceof ManifestError)) throw error;
      problem = error.message;
    }
  }
  const stored = asStored(await store.getRecord(releaseKey(name)));
  const packages = fromFile
    ? fromFile.packages.map((p) => ({ name: p.name, sha256: p.sha256 }))
    : (stored?.packages ?? []);
  if (!problem && !stored) problem = `not in the release store ${store.location}`;
  else if (!problem && !fromFile) problem = `no ${releaseFilePath(name)} in the repository`;
  else if (!problem && stored && !samePackages(packages, stored.packages))
    problem = `the store's record is not the committed file's packages`;
  const rank = (env: string) => (order.includes(env) ? order.indexOf(env) : order.length);
  const records = (await verificationsOfRelease(store, name))
    .filter((v) => samePackages(v.packages, packages))
    .sort((a, b) => rank(a.environment) - rank(b.environment) || (a.environment < b.environment ? -1 : 1))
    .map((v) => ({ environment: v.environment, verifiedAt: v.verifiedAt, is: verificationState(v) }));
  const verifiedOn = records
    .filter((v) => v.is.state === "verified")
    .map((v) => ({ environment: v.environment, verifiedAt: v.verifiedAt }));
  const verifying = records.flatMap((v) =>
    v.is.state === "soaking" ? [{ environment: v.environment, soakUntil: v.is.until }] : [],
  );
  const notVerified = records.flatMap((v) =>
    v.is.state === "not-verified" ? [{ environment: v.environment, at: v.is.at, reason: v.is.reason }] : [],
  );
  const rejection = await rejectionOf(store, name);
  const rolledBack = await rollbacksOf(store, name, verifiedOn);
  const back = new Set(rolledBack.map((r) => r.environment));
  return {
    name,
    file,
    stored: stored !== undefined,
    createdAt: fromFile?.createdAt ?? stored?.createdAt ?? null,
    from: fromFile?.from ?? stored?.from ?? null,
    packages,
    verifiedOn: verifiedOn.filter((v) => !back.has(v.environment)),
    verifying,
    notVerified,
    rolledBack,
    problem,
    rejected: rejection
      ? {
          by: rejection.actor,
          at: rejection.at,
          reason: rejection.reason,
          authenticated: !rejection.unauthenticated,
        }
      : null,
  };
}

/**
 * `egp release list` for the CLI and a library caller: the releases of the repository at `dir` and
 * of its store (default: the one egp.yaml names), newest first, and where the store is.
 */
export async function releaseList(
  dir: string,
  given?: ReleaseStore,
): Promise<{ releases: ReleaseListing[]; store: string }> {
  const store = given ?? (await openProjectStore(dir));
  const order = environmentsInOrder(await readRepository(dir));
  return { releases: await listReleases(dir, store, order), store: store.location };
}

/** The releases, newest first (by when they were built, then by name). */
async function listReleases(
  dir: string,
  store: ReleaseStore,
  order: readonly string[] = [],
): Promise<ReleaseListing[]> {
  const [committed, kept] = await Promise.all([committedNames(dir), storedNames(store)]);
  const names = [...new Set([...committed, ...kept])].filter((n) => RELEASE_NAME.test(n));
  const listings = await Promise.all(
    names.map((name) => listing(dir, store, name, committed.includes(name), order)),
  );
  return listings.sort(
    (a, b) => (b.createdAt ?? "").localeCompare(a.createdAt ?? "") || (a.name < b.name ? -1 : 1),
  );
}

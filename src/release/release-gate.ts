import { EgpError, type ErrorCode } from "../errors/index.ts";
import { type DesiredRelease, type DesiredState, instanceIdentityOf } from "../manifest/index.ts";
import type { ReleaseStore } from "../store/index.ts";
import { releaseKey, verifiedKey } from "../store/keys.ts";
import { distrust, signerOf, trustOf } from "../store/signing.ts";
import { rejectedByHead } from "./audit-head.ts";
import { rejectedKey, rejectionOf } from "./rejections.ts";
import { unverifiedText, verificationState } from "./verified.ts";

/*
 * Before an environment that runs a release is planned (its committed release file read by the
 * composer): the store's record of the release must agree with it package by package (the committed sha256s are
 * the truth), and every environment `requiresVerifiedOn` names must have a verification of the
 * same bytes in the store, signed by a trusted key, made on the instance that environment's file
 * names now.
 */

export class ReleaseGateError extends EgpError {
  constructor(code: ErrorCode, message: string) {
    super(code, message);
    this.name = "ReleaseGateError";
  }
}

/** What the store keeps of a release and of a verification: the packages' sha256s, by name. */
export interface StoredRelease {
  name: string;
  packages: Array<{ name: string; sha256: string }>;
}

export function storedRelease(release: Pick<DesiredRelease, "name" | "packages">): StoredRelease {
  return { name: release.name, packages: release.packages.map((p) => ({ name: p.name, sha256: p.sha256 })) };
}

function sameBytes(value: unknown, release: DesiredRelease): string | undefined {
  const stored = (value as Partial<StoredRelease> | undefined)?.packages;
  if (!Array.isArray(stored)) return "it lists no packages";
  for (const pkg of release.packages) {
    const other = stored.find((p) => p?.name === pkg.name);
    if (!other) return `it has no package "${pkg.name}"`;
    if (other.sha256 !== pkg.sha256)
      return `package "${pkg.name}" is sha256 ${other.sha256} there and ${pkg.sha256} in ${release.file}`;
  }
  if (stored.length !== release.packages.length) return `it lists ${stored.length} package(s)`;
  return undefined;
}

async function assertStored(store: ReleaseStore, release: DesiredRelease): Promise<void> {
  const record = await store.getRecord(releaseKey(release.name));
  if (record === undefined)
    throw new ReleaseGateError(
      "EGP_RELEASE_MISMATCH",
      `release ${release.name} is not in the release store ${store.location}`,
    );
  const why = sameBytes(record, release);
  if (why)
    throw new ReleaseGateError(
      "EGP_RELEASE_MISMATCH",
      `release ${release.name} in the store ${store.location} is not the committed one (${why}); egp does not install it`,
    );
}

/** An environment of `requiresVerifiedOn` without a verification the gate believes, and why. */
export interface Unverified {
  env: string;
  /** Why a verification in the store does not count; undefined when there is none. */
  why?: string;
}

/**
 * The environments of `requiresVerifiedOn` that have no verification of these bytes in the store
 * that is signed by a trusted key and names the instance their file under `dir` names.
 */
export async function unverifiedOn(
  store: ReleaseStore,
  release: DesiredRelease,
  environments: readonly string[],
  dir: string,
  reach?: Reach,
): Promise<Unverified[]> {
  const missing: Unverified[] = [];
  for (const env of environments) {
    const key = verifiedKey(release.name, env);
    const record = await store.getRecord(key);
    if (record === undefined || sameBytes(record, release)) {
      missing.push({ env });
      continue;
    }
    const trust = trustOf(store, key, record);
    if (!trust.trusted) {
      missing.push({ env, why: `the store's verification of ${env} is not used: ${distrust(trust)}` });
      continue;
    }
    const pending = unverifiedText(verificationState(record));
    if (pending) {
      missing.push({ env, why: `${env} is ${pending}` });
      continue;
    }
    const instance = await instanceIdentityOf(dir, env);
    if (!instance || (record as { instance?: unknown }).instance !== instance)
      missing.push({
        env,
        why: `the store's verification of ${env} was made on another instance than environments/${env}.yaml names`,
      });
    else {
      const why = reach && (await reachedProblem(store, record, env, reach));
      if (why) missing.push({ env, why });
    }
  }
  return missing;
}

/** The keyed digest (reached.ts) of the instance `environments/<env>.yaml` reaches now. */
export type Reach = (env: string) => Promise<string | undefined>;

/**
 * Why a verification's instance is not the one the environment's file reaches now (its `${VAR}`s
 * as this run resolves them); undefined when it is, or when the record names none (written by an
 * egp that did not record it).
 */
async function reachedProblem(
  store: ReleaseStore,
  record: unknown,
  env: string,
  reach: Reach,
): Promise<string | undefined> {
  const { reached, signature } = record as { reached?: unknown; signature?: { key?: unknown } };
  if (typeof reached !== "string") return undefined;
  // The digest is keyed: only a run that signs with the key that made it can compute it again.
  if (signature?.key !== signerOf(store))
    return `the store's verification of ${env} can't be checked here: it names its instance under the key that signed it, and this run signs with another (give it that EGP_SIGNING_KEY)`;
  let now: string | undefined;
  try {
    now = await reach(env);
  } catch (error) {
    const message = ((error as Error).message ?? String(error)).split("\n")[0];
    return `the store's verification of ${env} can't be checked: the instance environments/${env}.yaml reaches did not answer (${message})`;
  }
  return now === reached
    ? undefined
    : `the store's verification of ${env} was made on another instance than environments/${env}.yaml reaches now`;
}

async function assertNotRejected(store: ReleaseStore, name: string, file: string): Promise<void> {
  const rejection = await rejectionOf(store, name);
  if (!rejection) {
    // The head carries every rejected name, so a rejection whose record is gone still refuses.
    if ((await rejectedByHead(store)).includes(name))
      throw new ReleaseGateError(
        "EGP_RELEASE_REJECTED",
        `release ${name} was rejected (the audit chain's head, audit-head, names it), but its record ${rejectedKey(name)} is missing from the store ${store.location}; egp never promotes it: name another release in ${file}`,
      );
    return;
  }
  const who = rejection.actor ? ` by ${rejection.actor} at ${rejection.at}` : "";
  const trust = rejection.unauthenticated
    ? ` (the rejection record is unauthenticated: ${rejection.unauthenticated})`
    : "";
  throw new ReleaseGateError(
    "EGP_RELEASE_REJECTED",
    `release ${name} was rejected${who}: ${rejection.reason}${trust}; egp never promotes it: name another release in ${file}`,
  );
}

/**
 * The release gate, asked of an environment that runs a release (`release:`) once its release file
 * is read: the store must hold the committed bytes, the release must not be rejected, and every
 * environment of `requiresVerifiedOn` must have verified it. Nothing to check without `release:`.
 */
export async function assertReleaseGate(
  dir: string,
  desired: DesiredState,
  store: ReleaseStore | undefined,
  reach?: Reach,
): Promise<void> {
  const { environment, release } = desired;
  if (!release) return;
  if (!store)
    throw new ReleaseGateError(
      "EGP_RELEASE_MISMATCH",
      `${environment.name} runs release ${release.name}, which needs the release store`,
    );
  await assertStored(store, release);
  await assertNotRejected(store, release.name, environment.file);
  const missing = await unverifiedOn(store, release, environment.requiresVerifiedOn ?? [], dir, reach);
  if (missing.length > 0) {
    const whys = missing.flatMap((m) => (m.why ? [m.why] : []));
    throw new ReleaseGateError(
      "EGP_RELEASE_NOT_VERIFIED",
      `release ${release.name} has not been verified on ${missing.map((m) => m.env).join(", ")}${whys.length ? `: ${whys.join("; ")}` : ""} (requiresVerifiedOn in ${environment.file})`,
    );
  }
}

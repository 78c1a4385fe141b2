import type { DesiredState } from "../manifest/index.ts";
import type { Plan } from "../plan/index.ts";
import { AUDIT_FIELD } from "../store/audit-stamp.ts";
import type { ReleaseStore } from "../store/index.ts";
import { environmentKey, verifiedKey } from "../store/keys.ts";
import { withoutSignature } from "../store/signing.ts";

/*
 * `verified/<release>/<env>`: the environment runs the release, every package's parts reading as
 * the release records them. Written by an apply whose final check found no package to install
 * (the install ran and verified, or the environment already matched), and read by the
 * `requiresVerifiedOn` gate of the environments after it. It names the instance it was made on (a
 * hash of the environment file's url and instance as written) and what it reached (a keyed digest of
 * the resolved url, the InstanceName answered and the server's key: reached.ts), and is signed by
 * the store as it is written.
 *
 * With `verify.soak` the apply records the verification as pending (`soaking` until `soakUntil`);
 * `egp verify` (verify.ts) re-checks the environment after it and records `verified` or
 * `not-verified`, as does any apply to the environment during the soak. A record without a state
 * was written before soaks existed, and is verified.
 */

export const VERIFICATION_STATES = ["verified", "soaking", "not-verified"] as const;

/** The fields every verification record has; `state`, `soakUntil`, `reason` are absent in older ones. */
export interface VerificationRecord {
  name: string;
  environment: string;
  instance: string | null;
  reached?: string;
  /** When the record was last decided: verified, soak started, or found not verified. */
  verifiedAt: string;
  plan: string;
  packages: Array<{ name: string; sha256: string }>;
  state?: (typeof VERIFICATION_STATES)[number];
  soakUntil?: string;
  /** Why it is not verified. */
  reason?: string;
}

/** What a verification record says, the one reading every view and gate makes of it. */
export type VerificationState =
  | { state: "verified"; at: string }
  | { state: "soaking"; since: string; until: string }
  | { state: "not-verified"; at: string; reason: string };

/** The record's state; an unknown state, or a soak without its end, counts as not verified. */
export function verificationState(record: unknown): VerificationState {
  const { state, soakUntil, reason, verifiedAt } = (record ?? {}) as Partial<Record<string, unknown>>;
  const at = typeof verifiedAt === "string" ? verifiedAt : "";
  if (state === undefined || state === "verified") return { state: "verified", at };
  if (state === "soaking" && typeof soakUntil === "string")
    return { state: "soaking", since: at, until: soakUntil };
  const why = typeof reason === "string" ? reason : `its state is ${JSON.stringify(state)}`;
  return { state: "not-verified", at, reason: why };
}

/** `soaking until …` / `not verified (…)`: why a record that is not verified does not count. */
export function unverifiedText(state: VerificationState): string | undefined {
  if (state.state === "soaking") return `soaking until ${state.until}`;
  if (state.state === "not-verified") return `not verified (${state.reason})`;
  return undefined;
}

export async function recordVerified(
  store: ReleaseStore,
  desired: DesiredState,
  check: Plan,
  /** The keyed digest of the instance the apply reached (reached.ts). */
  reached?: string,
  now: Date = new Date(),
): Promise<VerificationState | undefined> {
  const { release } = desired;
  if (!release || check.partial || check.changes.some((c) => c.action === "promote")) return undefined;
  const soakMs = desired.environment.verify?.soakMs;
  const verifiedAt = now.toISOString();
  const soak = soakMs
    ? { state: "soaking" as const, soakUntil: new Date(now.getTime() + soakMs).toISOString() }
    : {};
  const record: VerificationRecord = {
    name: release.name,
    environment: desired.environment.name,
    instance: desired.environment.instanceId ?? null,
    ...(reached ? { reached } : {}),
    verifiedAt,
    plan: check.id,
    packages: release.packages.map((p) => ({ name: p.name, sha256: p.sha256 })),
    ...soak,
  };
  await store.putRecord(verifiedKey(release.name, desired.environment.name), record);
  return verificationState(record);
}

/** The record as written, to be written again: signed and stamped anew with the audit record that tells of the change. */
function rewritable(record: VerificationRecord): VerificationRecord {
  const { [AUDIT_FIELD]: _stamp, ...rest } = withoutSignature(record) as VerificationRecord & {
    audit?: number;
  };
  return rest;
}

/** The records of `env` that are soaking now: each release's. */
export async function soakingOn(
  store: ReleaseStore,
  env: string,
): Promise<Array<{ key: string; record: VerificationRecord; until: string }>> {
  const tail = `/${environmentKey(env)}`;
  const keys = (await store.listRecords("verified")).filter((key) => key.endsWith(tail));
  const found = await Promise.all(
    keys.map(async (key) => ({
      key,
      record: (await store.getRecord(key)) as VerificationRecord | undefined,
    })),
  );
  return found.flatMap(({ key, record }) => {
    if (!record || record.environment !== env) return [];
    const state = verificationState(record);
    return state.state === "soaking" && verifiedKey(record.name, env) === key
      ? [{ key, record, until: state.until }]
      : [];
  });
}

/**
 * Records a soaking verification as not verified, with why: `egp verify` found a change, or an apply
 * to the environment ended the soak. The record keeps its plan and packages.
 */
export async function recordNotVerified(
  store: ReleaseStore,
  record: VerificationRecord,
  reason: string,
  now: Date = new Date(),
): Promise<void> {
  const { soakUntil: _ended, ...rest } = rewritable(record);
  await store.putRecord(verifiedKey(record.name, record.environment), {
    ...rest,
    state: "not-verified",
    verifiedAt: now.toISOString(),
    reason,
  });
}

/** A soaking record whose re-check found nothing changed: verified from now. */
export async function recordSoakVerified(
  store: ReleaseStore,
  record: VerificationRecord,
  now: Date = new Date(),
): Promise<void> {
  const { soakUntil: _ended, reason: _none, ...rest } = rewritable(record);
  await store.putRecord(verifiedKey(record.name, record.environment), {
    ...rest,
    state: "verified",
    verifiedAt: now.toISOString(),
  });
}

/** Ends every soak of the environment as not verified (an apply to it started); the ended ones. */
export async function endSoaks(store: ReleaseStore, env: string, reason: string): Promise<string[]> {
  const soaking = await soakingOn(store, env);
  for (const { record } of soaking) await recordNotVerified(store, record, reason);
  return soaking.map(({ record }) => record.name);
}

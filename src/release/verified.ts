import type { DesiredState } from "../manifest/index.ts";
import type { Plan } from "../plan/index.ts";
import { type ReleaseStore, verifiedKey } from "../store/index.ts";

/*
 * `verified/<release>/<env>`: the environment runs the release, every package's parts reading as
 * the release records them. Written by an apply whose final check found no package to install
 * (the install ran and verified, or the environment already matched), and read by the
 * `requiresVerifiedOn` gate of the environments after it. It names the instance it was made on (a
 * hash of the environment file's url and instance as written) and what it reached (a keyed digest of
 * the resolved url, the InstanceName answered and the server's key: reached.ts), and is signed by
 * the store as it is written.
 */

export async function recordVerified(
  store: ReleaseStore,
  desired: DesiredState,
  check: Plan,
  /** The keyed digest of the instance the apply reached (reached.ts). */
  reached?: string,
): Promise<boolean> {
  const { release } = desired;
  if (!release || check.partial || check.changes.some((c) => c.action === "promote")) return false;
  await store.putRecord(verifiedKey(release.name, desired.environment.name), {
    name: release.name,
    environment: desired.environment.name,
    instance: desired.environment.instanceId ?? null,
    ...(reached ? { reached } : {}),
    verifiedAt: new Date().toISOString(),
    plan: check.id,
    packages: release.packages.map((p) => ({ name: p.name, sha256: p.sha256 })),
  });
  return true;
}

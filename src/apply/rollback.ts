import { existsSync } from "node:fs";
import { join } from "node:path";
import type { PlatformClient } from "../client/client.ts";
import type { InstallCodeOverrides } from "../manifest/index.ts";
import { DEFAULT_ROLLBACK_PREFIX, installName, planRollback, type RollbackPlan } from "../plan/index.ts";
import { readPackageParts } from "../state/index.ts";
import type { ReleaseStore } from "../store/index.ts";
import { artifactPath, verifiedArtifact } from "./artifacts.ts";
import { cacheInstall, historyToRollBack } from "./history.ts";
import { Journal } from "./journal.ts";
import { ReleaseError, type ReleaseRecord } from "./releases.ts";

/*
 * What `egp rollback` needs before it asks: the release to undo (the newest, or the one named),
 * its snapshot file, and the target's objects as they are now, planned by the pure planRollback.
 */

export interface PreparedRollback {
  release: ReleaseRecord;
  rollback: RollbackPlan;
}

export async function prepareRollback(
  stateDir: string,
  env: string,
  client: PlatformClient,
  options: { store: ReleaseStore; to?: string; prefix?: string; installCodes?: InstallCodeOverrides },
): Promise<PreparedRollback> {
  const { store } = options;
  // The store's history is the truth, so a machine that never promoted can roll back.
  const release = await historyToRollBack(store, env, options.to);
  await cacheInstall(store, stateDir, release);
  const snapshot = release.snapshot;
  if (!snapshot) throw new ReleaseError("EGP_RELEASE_UNUSABLE", `${installName(release)} has no snapshot`);
  const file = artifactPath(stateDir, snapshot.digest);
  if (!existsSync(file))
    throw new ReleaseError(
      "EGP_RELEASE_UNUSABLE",
      `the snapshot of ${installName(release)}, ${file}, is gone; nothing to roll back to`,
    );
  await verifiedArtifact(stateDir, snapshot.digest).catch((error: Error) => {
    throw new ReleaseError(
      "EGP_RELEASE_UNUSABLE",
      `the snapshot of ${installName(release)} can't be used: ${error.message}`,
    );
  });
  const live = await readPackageParts(
    client,
    snapshot.objects.map((o) => ({ guid: o.guid, type: o.type })),
  );
  const rollback = planRollback({
    release: { ...release, snapshot },
    live,
    prefix: options.prefix ?? DEFAULT_ROLLBACK_PREFIX,
    createdAt: new Date().toISOString(),
    installCodes: options.installCodes,
  });
  return { release, rollback };
}

/** Rollbacks keep their journals apart, so that `apply --resume` never offers one. */
export function rollbackJournalFolder(stateDir: string, env: string): string {
  return join(Journal.folder(stateDir, env), "rollback");
}

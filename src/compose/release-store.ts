import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parse } from "yaml";
import { FolderStore, type ReleaseStore, StoreError, StoreErrorCode } from "../store/index.ts";

/**
 * The repository's release store: `releases.store` of `egp.yaml` when it names a folder, else a
 * folder store in `.egp/store`. (A stand-in: the full version also reads oci:// addresses.)
 */
export async function releaseStoreOf(repoRoot: string): Promise<ReleaseStore> {
  const text = await readFile(join(repoRoot, "egp.yaml"), "utf8").catch(() => undefined);
  const location =
    text === undefined ? undefined : (parse(text) as { releases?: { store?: unknown } })?.releases?.store;
  if (location === undefined) return new FolderStore(join(repoRoot, ".egp", "store"));
  if (typeof location !== "string" || location.startsWith("oci://"))
    throw new StoreError(StoreErrorCode.BadLocation, "egp.yaml: releases.store must be a folder path here");
  return new FolderStore(resolve(repoRoot, location));
}

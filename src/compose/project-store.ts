import { join } from "node:path";
import { loadProject } from "../manifest/project.ts";
import { checkStoreSpec, DEFAULT_STORE, openSignedStore } from "../store/open-store.ts";
import type { ReleaseStore } from "../store/store.ts";

/**
 * The release store of the repository at `root`, as its egp.yaml names it (a folder store at
 * `.egp/store` without one). A bad `releases.store` is a ManifestError at its line and column.
 */
export async function openProjectStore(
  root: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<ReleaseStore> {
  const { releases } = await loadProject(root, { checkStore: checkStoreSpec });
  const store = openSignedStore(releases, root, env);
  store.localState = join(root, ".egp");
  return store;
}

/**
 * What to tell whoever created a release in the default store, `.egp/store`: only this machine has
 * its bytes (as Terraform's local backend keeps state on one machine). Undefined for a store egp.yaml names.
 */
export async function localStoreNote(root: string): Promise<string | undefined> {
  const { releases } = await loadProject(root, { checkStore: checkStoreSpec });
  if (releases.store !== undefined) return undefined;
  return `Note: the release's files are in ${DEFAULT_STORE}, on this machine only: no other machine (a CI runner, a colleague) can fetch them. For a shared store, add to egp.yaml:\n  releases: { store: oci://registry.example.com/grc/egp }   # or a folder every machine mounts`;
}

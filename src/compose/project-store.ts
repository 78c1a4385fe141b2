import { loadProject } from "../manifest/project.ts";
import { checkStoreSpec, openStore } from "../store/open-store.ts";
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
  return openStore(releases, root, env);
}

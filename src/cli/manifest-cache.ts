import { ManifestCache } from "../manifest/index.ts";
import { ensureStateDir, stateDirOf } from "./state-dir.ts";

/** The manifest cache of a repository, unless `EGP_CACHE=off`. */
export function manifestCacheOf(dir: string): ManifestCache | undefined {
  if (process.env.EGP_CACHE === "off") return undefined;
  return new ManifestCache(stateDirOf(dir), { prepare: ensureStateDir });
}

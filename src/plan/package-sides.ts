import { createHash } from "node:crypto";
import type { LivePackageSide, LiveState } from "../state/live-state.ts";

/*
 * The package objects part of the live state is read on two instances (the target and the one
 * packages come from): a digest per instance, `packages@<env>`, lets a stale plan say which of
 * them changed. Fingerprints cover every part; details are for people only.
 */

export const SIDE_SEPARATOR = "@";

function sideDigest(side: LivePackageSide): string {
  const fingerprints = Object.values(side.objects)
    .map((object) => [object.guid, object.fingerprint])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  return createHash("sha256").update(JSON.stringify(fingerprints)).digest("hex");
}

export function packageSideDigests(live: LiveState): Record<string, string> {
  if (!live.packageSource) return {};
  return {
    [`packages${SIDE_SEPARATOR}${live.environment}`]: sideDigest(live.packages),
    [`packages${SIDE_SEPARATOR}${live.packageSource.environment}`]: sideDigest(live.packageSource),
  };
}

export type { LivePartName, LiveParts } from "./kinds/index.ts";
export { LIVE_KINDS } from "./kinds/index.ts";
export type {
  LivePackageObject,
  LivePackageSide,
  LiveState,
  LiveUser,
  PackageObjectType,
} from "./live-state.ts";
export type { ObjectRequest, PackageObjectParts, PackagePart } from "./package-objects.ts";
export { normalizeTree, readPackageObjects, readPackageParts } from "./package-objects.ts";
export type { EarlyReads, ReadLiveOptions } from "./read-live.ts";
export { liveDigest, readLiveState, startEarlyReads } from "./read-live.ts";

export type { AnyLiveKind, LivePartName, LiveParts } from "./kinds/index.ts";
export {
  BUILT_IN_LIVE_KINDS,
  liveKinds,
  liveOf,
  packageLive,
  recordLive,
  rolesUnchecked,
  securityParameterLive,
  userLive,
} from "./kinds/index.ts";
export type { PackageReads, PackagesAhead } from "./kinds/package.ts";
export { startPackagesAhead } from "./kinds/package.ts";
export type {
  CatalogueIndex,
  LivePackageObject,
  LivePackageSide,
  LiveState,
  LiveUser,
  PackageMembers,
  PackageObjectType,
  PackageReference,
  PartDetail,
  PartName,
  PartValue,
} from "./live-state.ts";
export type { ObjectRequest, PackageObjectParts, PackagePart } from "./package-objects.ts";
export {
  normalizeTree,
  objectFingerprint,
  readCatalogue,
  readPackageObjects,
  readPackageParts,
} from "./package-objects.ts";
export type { EarlyReads, ReadLiveOptions } from "./read-live.ts";
export { liveDigest, readLiveState, startEarlyReads } from "./read-live.ts";
export type { InstanceReads, SharedReads } from "./shared-reads.ts";
export { instanceReads, readOnce, sharedReads, treeOnce } from "./shared-reads.ts";

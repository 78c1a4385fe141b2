import type { LiveParts, PartDigests } from "./kinds/index.ts";

export type {
  CatalogueIndex,
  LivePackageObject,
  LivePackageSide,
  LiveUser,
  PackageMembers,
  PackageObjectType,
  PackageReference,
  PartDetail,
  PartName,
  PartValue,
} from "./live-objects.ts";

/**
 * What one environment reports: the environment's name and each kind's part (state/kinds/), with
 * the digests by which a saved plan is refused once what it was made from changed.
 */
export type LiveState = { environment: string } & LiveParts & {
    /** sha256 of the normalized state: a saved plan is stale once it changes. */
    digest: string;
    /** The same, per part, so that a stale plan can say what changed. */
    partDigests: PartDigests;
    /** Labels of the parts not read: no manifest manages them and no PrunePolicy names them. */
    notRead?: string[];
  };

import type { Contact, SecurityParameter, User } from "../wire/index.ts";

/*
 * What one environment reports, normalized so that the planner can compare it with the manifests
 * without knowing instance ids: users keyed by user name, parameters by name, package objects by
 * GUID with their metadata trees rewritten from ids to GUIDs and fingerprinted.
 */

export interface LiveUser {
  user: User;
  contacts: Contact[];
  /**
   * Ids of the groups the user belongs to, among the groups that were read (the environment's
   * groups map). Membership of other groups is unknown.
   */
  groups: number[];
}

export type PackageObjectType = "Application" | "SubForm" | "GlobalReport";

/** One object of a package as an instance has it. */
export interface LivePackageObject {
  /** Lower case. */
  guid: string;
  type: PackageObjectType;
  name: string;
  /** sha256 of the normalized metadata tree: equal fingerprints mean equal objects. */
  fingerprint: string;
  /** Counts of the tree's parts, for the plan's one-line description of a difference. */
  parts: Record<string, number>;
  /** GUIDs of every part of the tree (levels, fields, layouts, rules, actions…), for part-level diffs. */
  partFingerprints: Record<string, string>;
}

export interface LivePackageSide {
  /** Objects found, by lower-case GUID. */
  objects: Record<string, LivePackageObject>;
  /** Application names resolved to GUIDs on this side (source only). */
  applicationsByName: Record<string, string>;
}

export interface LiveState {
  environment: string;
  securityParameters: SecurityParameter[];
  users: LiveUser[];
  /** Group ids whose membership was read. */
  groupsRead: number[];
  /**
   * The instance's groups, read (one list read) when the environment has no groups map and a
   * manifest names groups; null when the instance has no group read (404), so the map is needed.
   * Absent: not read.
   */
  groupsListed?: Array<{ Id: number; Name: string }> | null;
  /** The package objects the manifests name, on the target (this environment). */
  packages: LivePackageSide;
  /** The same objects on the environment packages come from, when the manifests name any. */
  packageSource?: { environment: string } & LivePackageSide;
  /** sha256 of the normalized state: a saved plan is stale once it changes. */
  digest: string;
  /** The same, per part, so that a stale plan can say what changed. */
  partDigests: Record<"securityParameters" | "users" | "packages", string>;
}

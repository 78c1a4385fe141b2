import type { Contact, User } from "../wire/index.ts";

/*
 * What one environment reports, normalized so that the planner can compare it with the manifests
 * without knowing instance ids: users keyed by user name, parameters by name, package objects by
 * GUID with their metadata trees rewritten from ids to GUIDs and fingerprinted. The kinds' readers
 * build these; live-state.ts puts them together as the state of one environment.
 */

export interface LiveUser {
  user: User;
  contacts: Contact[];
  /**
   * Ids of the groups the user belongs to, among the groups that were read (the environment's
   * groups map). Membership of other groups is unknown.
   */
  groups: number[];
  /**
   * Ids of the roles the user holds, read back (`core/system/role/user/<id>`) for a user whose
   * manifest manages roles, where the instance answers that read. Absent: not read.
   */
  roles?: number[];
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
  /**
   * Every part as a person reads it, by the same keys as `partFingerprints`. Kept only for objects
   * that differ between the two sides compared (a plan's source and target, compare's two
   * instances), so that memory grows with the difference, not with the instance. Never in digests.
   */
  details?: Record<string, PartDetail>;
  /**
   * Only the parts' names, by the same keys, where no details can be read: a release records the
   * names its source had, so that its plan names the parts it adds. `details` win where both exist.
   */
  names?: Record<string, PartName>;
  /** What the object's fields need outside it, for the plan's dependency check (package-objects.ts). */
  references?: PackageReference[];
  /** Its levels and fields by name and alias, for the plan's conflict check. */
  members?: PackageMembers;
}

/** A field of a packaged object that points outside the object: at a level, or at a sub-form. */
export interface PackageReference {
  /** The field that needs it, by name, and its kind in words (`cross-reference`, `sub-form`). */
  field: string;
  via: string;
  /** Lower-case GUID of the level pointed at; null for a sub-form field. */
  level: string | null;
  /** Lower-case GUID of the level's module, or of the sub-form; null when the instance can't say. */
  module: string | null;
}

export interface PackageMembers {
  levels: Array<{ guid: string; name: string; alias: string }>;
  /**
   * `level`: the lower-case GUID of the field's level. `type`, `active` and `values` (a values
   * list's values by lower-case GUID) let a Record document of the same plan set a field the
   * install adds (src/plan/kinds/record-package-fields.ts).
   */
  fields: Array<{
    guid: string;
    name: string;
    alias: string;
    level: string;
    type?: number;
    active?: boolean;
    values?: Array<{ guid: string; name: string }>;
  }>;
}

/** Every application, sub-form and level of an instance by lower-case GUID, with names and aliases. */
export interface CatalogueIndex {
  modules: Record<string, { name: string; alias: string; type: string }>;
  levels: Record<string, { name: string; alias: string; module: string | null }>;
}

/** A value of a part's property as the plan prints it: names instead of GUIDs, words instead of codes. */
export type PartValue = string | number | boolean | null | string[];

/** A part's name, and what it belongs to (a field's level, an action's rule), by name. */
export interface PartName {
  name: string;
  parent?: string;
}

/** One part of an object's tree (module, level, field, layout, rule, action), described for people. */
export interface PartDetail {
  name: string;
  /** What it belongs to, by name: a field's, layout's or rule's level, an action's rule. */
  parent?: string;
  /** Properties by the label the plan prints (`required`, `type`, `values`…); lists of names are sets. */
  properties: Record<string, PartValue>;
  /** A layout's sections, in order, with their fields by name, in order. */
  sections?: Array<{ name: string; fields: string[] }>;
}

export interface LivePackageSide {
  /** Objects found, by lower-case GUID. */
  objects: Record<string, LivePackageObject>;
  /** Application names resolved to GUIDs on this side (source only). */
  applicationsByName: Record<string, string>;
  /** The instance's modules and levels, read with the objects (absent when no object was read). */
  catalogue?: CatalogueIndex;
  /** The instance's platform version (`applicationinfo/version`), when it answers it. */
  version?: string;
}

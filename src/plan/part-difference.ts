import type { PartValue } from "../state/live-state.ts";

/*
 * The shape of one part's difference between a source and a target (package-diff.ts computes
 * it): a leaf of the plan's model, so that the model can name it without importing the diff.
 */

export type Severity = "critical" | "normal";

/** `added`: on the source only (an install adds it); `onlyOnTarget`: on the target only. */
export type PartStatus = "added" | "changed" | "onlyOnTarget";

/** The kinds of part, as the part keys of the live state name them (`field:<guid>`). */
export const PART_TYPES = [
  "module",
  "level",
  "field",
  "layout",
  "rule",
  "action",
  "questionnaireRule",
] as const;
export type PartType = (typeof PART_TYPES)[number];

export interface PropertyDifference {
  /** `required`, `type`, `section "Testing"`, `value "Ineffective"`… */
  property: string;
  /** Absent: the property (a section, a value) is added. */
  before?: PartValue;
  /** Absent: the property is removed. */
  after?: PartValue;
  severity: Severity;
}

export interface PartDifference {
  part: PartType;
  /** Lower case. */
  guid: string;
  name: string;
  /** The level (or, for an action, the rule) it belongs to, by name. */
  parent?: string;
  status: PartStatus;
  severity: Severity;
  /** For a changed part: the properties that differ. */
  properties?: PropertyDifference[];
  /** The install leaves it as the target has it (layouts under `layout: keep`, existing parts under `createNew`). */
  keptByInstall?: boolean;
}

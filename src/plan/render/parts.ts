import type { PartValue } from "../../state/live-state.ts";
import type { PartDifference, PartStatus, PartType, PropertyDifference } from "../package-diff.ts";
import { printable } from "./printable.ts";

/*
 * One line per differing part of a package object, shared by plan and compare renderers:
 *   ~ field "Risk Score": required false → true [critical]
 *   ~ layout "Control Layout": section "Testing" added with "Last Tested", "Test Result"
 *   - field "Legacy Control ID": only on the target [critical]
 */

const PART_LABEL: Record<PartType, string> = {
  module: "application",
  level: "level",
  field: "field",
  layout: "layout",
  rule: "event rule",
  action: "event action",
  questionnaireRule: "questionnaire rule",
};

export const PART_MARK: Record<PartStatus, string> = { added: "+", changed: "~", onlyOnTarget: "-" };

/** How a whole part on one side only is said: the plan's words, or compare's. */
export interface StatusWords {
  added: string;
  onlyOnTarget: string;
  /** How a changed property is said; default: the plan's `before → after`. */
  property?: (difference: PropertyDifference) => string;
}

export const PLAN_WORDS: StatusWords = { added: "added", onlyOnTarget: "only on the target" };

export function partLabel(part: PartType, objectType?: string): string {
  if (part === "module" && objectType === "SubForm") return "sub-form";
  return PART_LABEL[part];
}

export function formatPartValue(value: PartValue | undefined): string {
  if (value === undefined || value === null || value === "") return "(none)";
  if (Array.isArray(value)) return `[${value.map((v) => JSON.stringify(v)).join(", ")}]`;
  if (typeof value === "string") return JSON.stringify(value);
  return String(value);
}

export function formatProperty(difference: PropertyDifference): string {
  const { property, before, after } = difference;
  if (before === undefined) {
    const listed =
      Array.isArray(after) && after.length ? ` with ${after.map((v) => JSON.stringify(v)).join(", ")}` : "";
    return `${property} added${listed}`;
  }
  if (after === undefined) return `${property} removed`;
  return `${property} ${formatPartValue(before)} → ${formatPartValue(after)}`;
}

/** What happened to the part, in words: `added`, the properties that changed, `only on the target`. */
export function describePart(part: PartDifference, words: StatusWords = PLAN_WORDS): string {
  if (part.status === "added") return words.added;
  if (part.status === "onlyOnTarget") return words.onlyOnTarget;
  const properties = part.properties ?? [];
  return properties.length ? properties.map(words.property ?? formatProperty).join("; ") : "changed";
}

export function partLine(part: PartDifference, objectType?: string, words: StatusWords = PLAN_WORDS): string {
  const critical = part.severity === "critical" ? " [critical]" : "";
  const kept = part.keptByInstall ? " (the install keeps the target's)" : "";
  // Property names and values are the instance's too: the whole line is made printable.
  return printable(
    `${PART_MARK[part.status]} ${partLabel(part.part, objectType)} ${JSON.stringify(part.name)}: ${describePart(part, words)}${critical}${kept}`,
  );
}

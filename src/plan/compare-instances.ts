import type { LivePackageObject, LivePackageSide, PartDetail } from "../state/live-state.ts";
import { countParts, type DiffCounts, diffObject, type PartDifference } from "./package-diff.ts";

/*
 * `egp compare`: two instances' applications and sub-forms, part by part, with the diff a plan
 * uses. Directional, as a promotion is: A (`from`) is the source, B (`to`) the target, so a part
 * on A only is "missing in target" and a part on B only "missing in source".
 */

/** Version of compare's JSON (docs/promotion.md). */
export const COMPARISON_FORMAT_VERSION = 1;

export const COMPARISON_STATUSES = ["mismatched", "missingInTarget", "missingInSource", "matched"] as const;
export type ComparisonStatus = (typeof COMPARISON_STATUSES)[number];

export interface ComparedObject {
  guid: string;
  type: "Application" | "SubForm";
  name: string;
  status: ComparisonStatus;
  /** The object's parts on A and on B (`1 level, 9 fields…`), absent on the side that lacks it. */
  fromParts?: Record<string, number>;
  toParts?: Record<string, number>;
  counts: DiffCounts;
  /** Every differing part, for mismatched objects and objects missing in the target. */
  parts: ComparedPart[];
}

/** A differing part; one on a single side carries that side's description of it. */
export type ComparedPart = PartDifference & { detail?: PartDetail };

/** The side's own description of a part it alone has, so that a report can show what is missing. */
function withDetail(
  part: PartDifference,
  a: LivePackageObject | undefined,
  b: LivePackageObject | undefined,
): ComparedPart {
  if (part.status === "changed") return part;
  const side = part.status === "added" ? a : b;
  const detail = side?.details?.[`${part.part}:${part.guid}`];
  return detail ? { ...part, detail } : part;
}

export interface ComparisonSummary {
  objects: number;
  matched: number;
  mismatched: number;
  missingInTarget: number;
  missingInSource: number;
  /** Parts that differ, over every object, and how many of them are critical. */
  parts: DiffCounts;
}

export interface Comparison {
  formatVersion: typeof COMPARISON_FORMAT_VERSION;
  from: string;
  to: string;
  createdAt: string;
  summary: ComparisonSummary;
  /** Grouped: mismatched, missing in target, missing in source, matched; by name within a group. */
  objects: ComparedObject[];
}

export interface CompareInput {
  from: { environment: string } & LivePackageSide;
  to: { environment: string } & LivePackageSide;
  createdAt: string;
}

function typeOf(object: LivePackageObject): ComparedObject["type"] {
  return object.type === "SubForm" ? "SubForm" : "Application";
}

function compareOne(a: LivePackageObject | undefined, b: LivePackageObject | undefined): ComparedObject {
  const object = (a ?? b) as LivePackageObject;
  const base = {
    guid: object.guid,
    type: typeOf(object),
    // A is the reference: its name, unless only B has the object.
    name: object.name,
    ...(a ? { fromParts: a.parts } : {}),
    ...(b ? { toParts: b.parts } : {}),
  };
  if (!a) return { ...base, status: "missingInSource", counts: countParts([]), parts: [] };
  const diff = diffObject(a, b);
  const counts = diff.counts;
  const parts = diff.parts.map((part) => withDetail(part, a, b));
  if (!b) return { ...base, status: "missingInTarget", counts, parts };
  if (a.fingerprint === b.fingerprint) return { ...base, status: "matched", counts, parts: [] };
  return { ...base, status: "mismatched", counts, parts };
}

const GROUP = new Map<string, number>(COMPARISON_STATUSES.map((status, index) => [status, index]));

export function compareInstances({ from, to, createdAt }: CompareInput): Comparison {
  const guids = new Set([...Object.keys(from.objects), ...Object.keys(to.objects)]);
  const objects = [...guids]
    .map((guid) => compareOne(from.objects[guid], to.objects[guid]))
    .sort(
      (x, y) =>
        (GROUP.get(x.status) ?? 0) - (GROUP.get(y.status) ?? 0) ||
        x.name.localeCompare(y.name) ||
        x.guid.localeCompare(y.guid),
    );
  const count = (status: ComparisonStatus) => objects.filter((o) => o.status === status).length;
  return {
    formatVersion: COMPARISON_FORMAT_VERSION,
    from: from.environment,
    to: to.environment,
    createdAt,
    summary: {
      objects: objects.length,
      matched: count("matched"),
      mismatched: count("mismatched"),
      missingInTarget: count("missingInTarget"),
      missingInSource: count("missingInSource"),
      parts: countParts(objects.flatMap((o) => o.parts)),
    },
    objects,
  };
}

/** Whether the two instances differ in anything compared (compare's exit 2). */
export function comparisonDiffers(comparison: Comparison): boolean {
  return comparison.summary.matched !== comparison.summary.objects;
}

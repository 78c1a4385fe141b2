import type { LivePackageObject, PartDetail, PartName, PartValue } from "../state/live-state.ts";
import type { FieldChange } from "./model.ts";
import {
  PART_TYPES,
  type PartDifference,
  type PartStatus,
  type PartType,
  type PropertyDifference,
  type Severity,
} from "./part-difference.ts";

/*
 * Part-by-part difference of one package object between a source and a target: every part (level,
 * field, layout, event rule, event action…) that is added, changed or only on the target, and for a
 * changed part the properties that differ, before → after, each with a severity. Shared by the plan
 * (source → target of a promotion) and `egp compare` (instance A → instance B).
 */

export type {
  PartDifference,
  PartStatus,
  PartType,
  PropertyDifference,
  Severity,
} from "./part-difference.ts";
export { PART_TYPES } from "./part-difference.ts";

export interface DiffCounts {
  added: number;
  changed: number;
  onlyOnTarget: number;
  critical: number;
}

export interface ObjectDiff {
  parts: PartDifference[];
  counts: DiffCounts;
}

function split(key: string): { part: PartType; guid: string } {
  const at = key.indexOf(":");
  const part = key.slice(0, at) as PartType;
  return { part: PART_TYPES.includes(part) ? part : "module", guid: key.slice(at + 1) };
}

const worst = (severities: readonly Severity[]): Severity =>
  severities.includes("critical") ? "critical" : "normal";

function singular(label: string): string {
  return label.endsWith("s") ? label.slice(0, -1) : label;
}

function quoted(name: string): string {
  return JSON.stringify(name);
}

/** Lists of names compare as sets: each name added or removed, then the order of the names both have. */
function listDifferences(
  label: string,
  before: string[],
  after: string[],
): Omit<PropertyDifference, "severity">[] {
  const had = new Set(before);
  const has = new Set(after);
  const out: Omit<PropertyDifference, "severity">[] = [
    ...after
      .filter((n) => !had.has(n))
      .map((n) => ({ property: `${singular(label)} ${quoted(n)}`, after: n })),
    ...before
      .filter((n) => !has.has(n))
      .map((n) => ({ property: `${singular(label)} ${quoted(n)}`, before: n })),
  ];
  const [commonBefore, commonAfter] = [before.filter((n) => has.has(n)), after.filter((n) => had.has(n))];
  if (commonBefore.join("\u0000") !== commonAfter.join("\u0000"))
    out.push({ property: `${label} order`, before: commonBefore, after: commonAfter });
  return out;
}

function sameValue(a: PartValue | undefined, b: PartValue | undefined): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => x === b[i]);
  return (a ?? null) === (b ?? null);
}

function sectionDifferences(
  before: NonNullable<PartDetail["sections"]>,
  after: NonNullable<PartDetail["sections"]>,
): Omit<PropertyDifference, "severity">[] {
  const old = new Map(before.map((s) => [s.name, s.fields]));
  const now = new Map(after.map((s) => [s.name, s.fields]));
  const out: Omit<PropertyDifference, "severity">[] = [];
  for (const section of after) {
    const fields = old.get(section.name);
    if (!fields) out.push({ property: `section ${quoted(section.name)}`, after: section.fields });
    else
      out.push(
        ...listDifferences("fields", fields, section.fields).map((d) => ({
          ...d,
          property: `section ${quoted(section.name)} ${d.property}`,
        })),
      );
  }
  for (const section of before) {
    if (!now.has(section.name))
      out.push({ property: `section ${quoted(section.name)}`, before: section.fields });
  }
  const kept = (sections: typeof before, other: Map<string, string[]>) =>
    sections.map((s) => s.name).filter((name) => other.has(name));
  const order = [kept(before, now), kept(after, old)];
  if (order[0]?.join("\u0000") !== order[1]?.join("\u0000"))
    out.push({ property: "section order", before: order[0], after: order[1] });
  return out;
}

/** Severity of one property difference: critical where the install can break records or workflow (docs/promotion.md). */
function severityOf(part: PartType, difference: Omit<PropertyDifference, "severity">): Severity {
  if (part === "rule" || part === "action") return "critical";
  if (part !== "field") return "normal";
  if (difference.property === "type") return "critical";
  if (difference.property === "required" && difference.after === true) return "critical";
  return "normal";
}

function propertyDifferences(part: PartType, source: PartDetail, target: PartDetail): PropertyDifference[] {
  const out: Omit<PropertyDifference, "severity">[] = [];
  const labels = new Set([...Object.keys(target.properties), ...Object.keys(source.properties)]);
  for (const label of labels) {
    const [before, after] = [target.properties[label], source.properties[label]];
    if (sameValue(before, after)) continue;
    if (Array.isArray(before) && Array.isArray(after)) out.push(...listDifferences(label, before, after));
    else out.push({ property: label, before: before ?? null, after: after ?? null });
  }
  if (source.sections || target.sections)
    out.push(...sectionDifferences(target.sections ?? [], source.sections ?? []));
  return out.map((d) => ({ ...d, severity: severityOf(part, d) }));
}

/** Severity of a part that is on one side only. */
function wholePartSeverity(part: PartType, status: PartStatus): Severity {
  if (status !== "onlyOnTarget") return "normal";
  return part === "field" || part === "rule" || part === "action" ? "critical" : "normal";
}

const ORDER = new Map<string, number>(PART_TYPES.map((type, index) => [type, index]));

function byPartThenName(a: PartDifference, b: PartDifference): number {
  return (
    (ORDER.get(a.part) ?? 0) - (ORDER.get(b.part) ?? 0) ||
    (a.parent ?? "").localeCompare(b.parent ?? "") ||
    a.name.localeCompare(b.name) ||
    a.guid.localeCompare(b.guid)
  );
}

/** A part as its side names it: its details, else its recorded name (a release's). */
function namedPart(side: LivePackageObject | undefined, key: string): PartName | undefined {
  return side?.details?.[key] ?? side?.names?.[key];
}

function wholePart(
  key: string,
  detail: PartName | undefined,
  status: Exclude<PartStatus, "changed">,
): PartDifference {
  const { part, guid } = split(key);
  return {
    part,
    guid,
    name: detail?.name ?? guid,
    ...(detail?.parent !== undefined ? { parent: detail.parent } : {}),
    status,
    severity: wholePartSeverity(part, status),
  };
}

/**
 * Every part that differs between the source's object and the target's, sorted by kind of part,
 * then name. `kept` says which changed parts the install leaves as the target has them. Without
 * details (an object read without them), parts are named by their recorded names (a release's), else
 * by GUID, and changes carry no properties.
 */
export function diffObject(
  source: LivePackageObject | undefined,
  target: LivePackageObject | undefined,
  kept: (part: PartType) => boolean = () => false,
): ObjectDiff {
  const parts: PartDifference[] = [];
  const mine = source?.partFingerprints ?? {};
  const theirs = target?.partFingerprints ?? {};
  for (const [key, fingerprint] of Object.entries(mine)) {
    const other = theirs[key];
    if (other === undefined) {
      parts.push(wholePart(key, namedPart(source, key), "added"));
      continue;
    }
    if (other === fingerprint) continue;
    const { part, guid } = split(key);
    const [after, before] = [source?.details?.[key], target?.details?.[key]];
    const properties = after && before ? propertyDifferences(part, after, before) : [];
    // The name the install gives it: the source's, else (no details) the target's.
    const named = after ?? source?.names?.[key] ?? before ?? target?.names?.[key];
    parts.push({
      part,
      guid,
      name: named?.name ?? guid,
      ...(named?.parent !== undefined ? { parent: named.parent } : {}),
      status: "changed",
      // A change whose properties can't be named (no details) is critical where any change is.
      severity: properties.length
        ? worst(properties.map((p) => p.severity))
        : severityOf(part, { property: "" }),
      properties,
      ...(kept(part) ? { keptByInstall: true } : {}),
    });
  }
  for (const key of Object.keys(theirs)) {
    if (!(key in mine)) parts.push(wholePart(key, namedPart(target, key), "onlyOnTarget"));
  }
  parts.sort(byPartThenName);
  return { parts, counts: countParts(parts) };
}

export function countParts(parts: readonly PartDifference[]): DiffCounts {
  const counts: DiffCounts = { added: 0, changed: 0, onlyOnTarget: 0, critical: 0 };
  for (const part of parts) {
    counts[part.status] += 1;
    if (part.severity === "critical") counts.critical += 1;
  }
  return counts;
}

function describeParts(parts: Record<string, number>): string {
  return Object.entries(parts)
    .filter(([, count]) => count > 0)
    .map(([part, count]) => `${count} ${count === 1 ? part.replace(/s$/, "") : part}`)
    .join(", ");
}

/** The counts in words: `2 part(s) to add, 1 to change, 1 only on the target (2 critical)`. */
export function describeCounts(counts: DiffCounts): string {
  const summary = [
    counts.added ? `${counts.added} part(s) to add` : "",
    counts.changed ? `${counts.changed} to change` : "",
    counts.onlyOnTarget ? `${counts.onlyOnTarget} only on the target` : "",
  ].filter(Boolean);
  const critical = counts.critical ? ` (${counts.critical} critical)` : "";
  return `${summary.join(", ") || "differs"}${critical}`;
}

/**
 * How the target's object differs from the source's: the target's parts in one line (`before`),
 * what the install changes in one line (`after`), and every differing part (`parts`).
 */
export function describeDifference(
  source: LivePackageObject,
  target: LivePackageObject | undefined,
  install?: MatchOptions,
): FieldChange {
  const field = `${source.type} ${source.name}`;
  const kept = (part: PartType) =>
    install !== undefined &&
    (install.installMethod === 1 || (part === "layout" && install.installOption === 1));
  const { parts, counts } = diffObject(source, target, kept);
  return {
    field,
    before: target ? describeParts(target.parts) : "(absent)",
    after: target ? describeCounts(counts) : describeParts(source.parts),
    verifiable: true,
    parts,
  };
}

/** The install options that decide which differences an install would resolve. */
export interface MatchOptions {
  /** 1: create new only (existing parts are left as they are); 2: create and update. */
  installMethod: number;
  /** 1: keep the target's layouts; 2: override them. */
  installOption: number;
}

/**
 * Whether the target already has what installing the source's object would give it: every part of
 * the source is on the target, alike, except the parts the install options leave alone (existing
 * parts under "create new only", existing layouts under "keep layout"). Parts only on the target
 * don't count: an install keeps them (or deactivates them, with InactivateUnusedFields).
 */
export function objectMatches(
  source: LivePackageObject,
  target: LivePackageObject | undefined,
  options: MatchOptions,
): boolean {
  if (!target) return false;
  for (const [part, fingerprint] of Object.entries(source.partFingerprints)) {
    const other = target.partFingerprints[part];
    if (other === undefined) return false;
    if (other === fingerprint) continue;
    if (options.installMethod === 1) continue;
    if (part.startsWith("layout:") && options.installOption === 1) continue;
    return false;
  }
  return true;
}

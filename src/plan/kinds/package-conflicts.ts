import type { LivePackageObject, LivePackageSide } from "../../state/live-state.ts";

/*
 * Objects an install would refuse because the target already has something of the same name under
 * another GUID, as the platform checks them on the target as the install would leave it (names
 * compare trimmed and case-insensitively, as its collation does):
 * - two applications (or two sub-forms) with one name;
 * - two levels of one module with one alias;
 * - two fields of one level with one alias.
 * At least one of the two must come from the package: clashes the target already had are its own.
 */

export interface Conflict {
  /** Lower-case GUID of the packaged object the clash is in. */
  object: string;
  message: string;
}

interface Named {
  guid: string;
  name: string;
  /** The value that must be unique (a name or an alias). */
  value: string;
  packaged: boolean;
}

const TYPE_WORD: Record<string, string> = { Application: "application", SubForm: "sub-form" };
const PLURAL: Record<string, string> = { Application: "applications", SubForm: "sub-forms" };

const norm = (value: string) => value.trim().toLowerCase();

function clashes(entries: readonly Named[]): [Named, Named][] {
  const first = new Map<string, Named>();
  const pairs: [Named, Named][] = [];
  for (const entry of entries) {
    const value = norm(entry.value);
    if (value === "") continue;
    const earlier = first.get(value);
    if (!earlier) first.set(value, entry);
    else if (earlier.packaged || entry.packaged) pairs.push([earlier, entry]);
  }
  return pairs;
}

/** The packaged entries, then the target's that the package does not replace. */
function finalSet(packaged: readonly Named[], live: readonly Named[]): Named[] {
  const replaced = new Set(packaged.map((p) => p.guid));
  return [...packaged, ...live.filter((l) => !replaced.has(l.guid))];
}

function side(entry: Named, environment: string): string {
  return `${JSON.stringify(entry.name)} (${entry.guid}${entry.packaged ? ", in the package" : `, on ${environment}`})`;
}

const WHAT_TO_DO =
  "rename one of them on its instance, map them (give the source's object the target's GUID by promoting the target's first), or exclude the object from the package";

export interface ConflictInput {
  /** What the package installs, as the source has it; objects the install leaves alone are left out. */
  objects: readonly LivePackageObject[];
  target: LivePackageSide;
  environment: string;
}

function moduleConflicts({ objects, target, environment }: ConflictInput): Conflict[] {
  const out: Conflict[] = [];
  const modules = target.catalogue?.modules ?? {};
  for (const type of ["Application", "SubForm"] as const) {
    const packaged = objects
      .filter((o) => o.type === type)
      .map((o) => ({ guid: o.guid, name: o.name, value: o.name, packaged: true }));
    if (packaged.length === 0) continue;
    const live = Object.entries(modules)
      .filter(([, m]) => m.type === type)
      .map(([guid, m]) => ({ guid, name: m.name, value: m.name, packaged: false }));
    for (const [a, b] of clashes(finalSet(packaged, live))) {
      const mine = a.packaged ? a : b;
      out.push({
        object: mine.guid,
        message: `two ${PLURAL[type]} would be named ${JSON.stringify(a.name)}: ${side(a, environment)} and ${side(b, environment)}; an install refuses this (or makes a duplicate such as ${JSON.stringify(`${a.name} (1)`)}): ${WHAT_TO_DO}`,
      });
    }
  }
  return out;
}

function memberConflicts({ objects, target, environment }: ConflictInput): Conflict[] {
  const out: Conflict[] = [];
  const levels = target.catalogue?.levels ?? {};
  for (const object of objects) {
    const members = object.members;
    if (!members) continue;
    const what = `${TYPE_WORD[object.type] ?? object.type} ${JSON.stringify(object.name)}`;
    const packagedLevels = members.levels.map((l) => ({ ...l, value: l.alias, packaged: true }));
    const liveLevels = Object.entries(levels)
      .filter(([, l]) => l.module === object.guid)
      .map(([guid, l]) => ({ guid, name: l.name, value: l.alias, packaged: false }));
    for (const [a, b] of clashes(finalSet(packagedLevels, liveLevels))) {
      out.push({
        object: object.guid,
        message: `${what} would have two levels with the alias ${JSON.stringify(a.value)}: ${side(a, environment)} and ${side(b, environment)}; an install refuses this: ${WHAT_TO_DO}`,
      });
    }
    const liveFields = target.objects[object.guid]?.members?.fields ?? [];
    for (const level of members.levels) {
      const packaged = members.fields
        .filter((f) => f.level === level.guid)
        .map((f) => ({ ...f, value: f.alias, packaged: true }));
      const live = liveFields
        .filter((f) => f.level === level.guid)
        .map((f) => ({ ...f, value: f.alias, packaged: false }));
      for (const [a, b] of clashes(finalSet(packaged, live))) {
        out.push({
          object: object.guid,
          message: `level ${JSON.stringify(level.name)} of ${what} would have two fields with the alias ${JSON.stringify(a.value)}: ${side(a, environment)} and ${side(b, environment)}; an install refuses this: ${WHAT_TO_DO}`,
        });
      }
    }
  }
  return out;
}

/** Every name and alias clash installing `objects` on the target would make. */
export function packageConflicts(input: ConflictInput): Conflict[] {
  return [...moduleConflicts(input), ...memberConflicts(input)];
}

import type { DesiredPackage } from "../../manifest/index.ts";
import type { LivePackageObject, LivePackageSide, PackageReference } from "../../state/live-state.ts";

/*
 * What a package's objects point at outside themselves (cross-reference and related-records fields
 * at levels, sub-form fields at sub-forms) must be in the package or already on the target, or the
 * install is refused ("… references level …, which is neither in the package nor on this
 * instance"). Objects of the packages this one `dependsOn` count as there: they are installed
 * first. With `includeDependencies`, what is missing is added from the source, transitively.
 */

/** An object the package gains because one of its objects needs it. */
export interface AddedDependency {
  object: LivePackageObject;
  /** The object that needs it, by name, and the field through which. */
  of: string;
  field: string;
}

/** A reference nothing satisfies: what is missing, and who needs it through which fields. */
export interface MissingDependency {
  /** Lower-case GUID of the missing module (or the level, when its module is unknown). */
  key: string;
  /** `application "Controls"`, or `level "Control" of application "Controls"` when only the level is. */
  what: string;
  /** By the name of the object that needs it: its fields, `field "Related Control", cross-reference`… */
  neededBy: Map<string, string[]>;
  /** A package of this plan that has it, which this one does not depend on. */
  inPackage?: string;
}

export interface DependencyResult {
  added: AddedDependency[];
  missing: MissingDependency[];
}

/** Every level and module a set of objects carries, by lower-case GUID. */
export interface Carried {
  modules: Set<string>;
  levels: Set<string>;
}

export function carriedBy(objects: Iterable<LivePackageObject>): Carried {
  const carried: Carried = { modules: new Set(), levels: new Set() };
  for (const object of objects) {
    carried.modules.add(object.guid);
    for (const key of Object.keys(object.partFingerprints))
      if (key.startsWith("level:")) carried.levels.add(key.slice("level:".length));
  }
  return carried;
}

function has(carried: Carried, reference: PackageReference): boolean {
  return reference.level !== null
    ? carried.levels.has(reference.level)
    : reference.module !== null && carried.modules.has(reference.module);
}

function onTarget(target: LivePackageSide, reference: PackageReference): boolean {
  const index = target.catalogue;
  if (!index) return false;
  if (reference.level !== null) return Object.hasOwn(index.levels, reference.level);
  return reference.module !== null && Object.hasOwn(index.modules, reference.module);
}

const TYPE_WORD: Record<string, string> = {
  Application: "application",
  SubForm: "sub-form",
  Questionnaire: "questionnaire",
};

/** The missing thing in words, named as the source has it (the target has no name for it). */
function describeMissing(reference: PackageReference, source: LivePackageSide, target: LivePackageSide) {
  const modules = source.catalogue?.modules;
  const module =
    reference.module !== null && modules && Object.hasOwn(modules, reference.module)
      ? modules[reference.module]
      : undefined;
  const moduleWords = module
    ? `${TYPE_WORD[module.type] ?? module.type} ${JSON.stringify(module.name)}`
    : `module ${reference.module ?? "(unknown)"}`;
  const moduleThere =
    reference.module !== null &&
    target.catalogue !== undefined &&
    Object.hasOwn(target.catalogue.modules, reference.module);
  if (reference.level === null || !moduleThere)
    return { key: reference.module ?? reference.level ?? "", what: moduleWords };
  const levels = source.catalogue?.levels;
  const level = levels && Object.hasOwn(levels, reference.level) ? levels[reference.level] : undefined;
  const levelWords = `level ${level ? JSON.stringify(level.name) : reference.level}`;
  return { key: reference.level, what: `${levelWords} of ${moduleWords}` };
}

export interface DependencyInput {
  /** The package's objects as the source has them. */
  objects: readonly LivePackageObject[];
  source: LivePackageSide;
  target: LivePackageSide;
  /** What the packages this one depends on carry (installed first). */
  before: Carried;
  /** The other packages of the plan, by name, with what they carry: for a hint. */
  others: ReadonlyArray<{ name: string; carried: Carried }>;
  include: boolean;
}

/**
 * The objects the package must gain (with `include`) and what stays missing. Added objects' own
 * references are checked in turn; an added object is never one the package already holds.
 */
export function packageDependencies(input: DependencyInput): DependencyResult {
  const { source, target, before, include } = input;
  const held = carriedBy(input.objects);
  const added: AddedDependency[] = [];
  const missing = new Map<string, MissingDependency>();
  const queue = [...input.objects];
  for (let object = queue.shift(); object; object = queue.shift()) {
    for (const reference of object.references ?? []) {
      if (has(held, reference) || has(before, reference) || onTarget(target, reference)) continue;
      const module = reference.module !== null ? source.objects[reference.module] : undefined;
      if (include && module) {
        added.push({ object: module, of: object.name, field: reference.field });
        for (const [kind, keys] of Object.entries(carriedBy([module])) as [keyof Carried, Set<string>][])
          for (const key of keys) held[kind].add(key);
        queue.push(module);
        continue;
      }
      const { key, what } = describeMissing(reference, source, target);
      const entry = missing.get(key) ?? { key, what, neededBy: new Map<string, string[]>() };
      const fields = entry.neededBy.get(object.name) ?? [];
      const field = `field ${JSON.stringify(reference.field)}, ${reference.via}`;
      if (!fields.includes(field)) fields.push(field);
      entry.neededBy.set(object.name, fields);
      const other = input.others.find((o) => has(o.carried, reference));
      if (other) entry.inPackage = other.name;
      missing.set(key, entry);
    }
  }
  return { added, missing: [...missing.values()] };
}

/** One missing dependency as the plan refuses it. */
export function missingMessage(pkg: DesiredPackage, missing: MissingDependency, environment: string): string {
  const by = [...missing.neededBy].map(([name, fields]) => `${name} (${fields.join("; ")})`).join(", ");
  const needed = `package ${JSON.stringify(pkg.name)}: ${missing.what} is needed by ${by}`;
  const where = `and is neither in the package nor on ${environment}`;
  const fix = missing.inPackage
    ? `package ${JSON.stringify(missing.inPackage)} of this plan has it: add dependsOn: [${JSON.stringify(missing.inPackage)}]`
    : "add it to objects, set includeDependencies: true, or install it first";
  return `${needed}, ${where}; ${fix}`;
}

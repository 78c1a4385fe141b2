import { hash } from "node:crypto";
import type { PlatformClient } from "../client/client.ts";
import { NotFoundError } from "../client/errors.ts";
import type {
  Application,
  EventAction,
  EventRule,
  FieldDefinition,
  Level,
  LevelLayout,
  QuestionnaireRule,
} from "../wire/index.ts";
import { fieldReferenceKind, fieldReferenceWord } from "../wire/index.ts";
import { hash as canonicalHash } from "./digest.ts";
import type {
  CatalogueIndex,
  LivePackageObject,
  LivePackageSide,
  PackageMembers,
  PackageObjectType,
  PackageReference,
} from "./live-objects.ts";
import { type Catalogue, describeTree, type ModuleTree } from "./package-details.ts";
import { type InstanceReads, readOnce, treeOnce } from "./shared-reads.ts";

/*
 * Package objects as metadata trees with every instance id rewritten to a GUID, so that the same
 * object on two instances compares equal. What the platform stamps per instance (ids, update
 * information) and what installs don't carry unless asked (translations) is left out.
 */

export interface ObjectRequest {
  guid: string;
  type: PackageObjectType;
  /**
   * Read the applications and sub-forms its fields point at too, and theirs in turn (a package's
   * `includeDependencies`).
   */
  follow?: boolean;
}

/**
 * The parts are built here with their keys in a fixed order (and unordered lists sorted), so plain
 * JSON is canonical for them; it is several times faster than sorting keys over 200 trees.
 */
const sha = (value: unknown) => hash("sha256", JSON.stringify(value));

/**
 * An object's fingerprint over its parts' fingerprints. The parts come in the order the instance
 * lists them, which differs between instances, so this digest is canonical (keys sorted).
 */
export function objectFingerprint(partFingerprints: Readonly<Record<string, string>>): string {
  return canonicalHash(partFingerprints);
}

function lower(guid: string): string {
  return guid.toLowerCase();
}

/**
 * Reads the modules and levels once: enough to map any module or level id to its GUID. The
 * platform lists questionnaires apart from applications and sub-forms; they are modules all the
 * same (a package carries one as an Application), so the catalogue holds them too.
 */
export async function readCatalogue(client: PlatformClient): Promise<Catalogue> {
  const [applications, levels, questionnaires] = (await Promise.all([
    client.metadata.applications(),
    client.metadata.levels(),
    client.metadata.questionnaires(),
  ])) as [Application[], Level[], Application[]];
  const modules = [...applications, ...questionnaires];
  return {
    modules,
    levels,
    moduleGuid: new Map(modules.map((m) => [m.Id, lower(m.Guid)])),
    levelGuid: new Map(levels.map((l) => [l.Id, lower(l.Guid)])),
    levelById: new Map(levels.map((l) => [l.Id, l])),
  };
}

/** The modules and levels by GUID, as the plan's dependency and conflict checks look them up. */
function indexOf(catalogue: Catalogue): CatalogueIndex {
  const index: CatalogueIndex = { modules: Object.create(null), levels: Object.create(null) };
  for (const m of catalogue.modules)
    index.modules[lower(m.Guid)] = { name: m.Name, alias: m.Alias, type: m.Type };
  for (const l of catalogue.levels)
    index.levels[lower(l.Guid)] = {
      name: l.Name,
      alias: l.Alias,
      module: catalogue.moduleGuid.get(l.ModuleId) ?? null,
    };
  return index;
}

/** The fields of a tree that point outside its module: at another module's level, or at a sub-form. */
function referencesOf(tree: ModuleTree, catalogue: Catalogue): PackageReference[] {
  const own = lower(tree.module.Guid);
  const out: PackageReference[] = [];
  for (const { fields } of tree.levels) {
    for (const f of fields) {
      const kind = fieldReferenceKind(f.Type);
      const via = fieldReferenceWord(f.Type);
      if (kind === "levels") {
        for (const id of f.ReferencedLevelIds) {
          const level = catalogue.levelById.get(id);
          if (!level) continue;
          const module = catalogue.moduleGuid.get(level.ModuleId) ?? null;
          if (module !== own) out.push({ field: f.Name, via, level: lower(level.Guid), module });
        }
      } else if (kind === "subform" && f.RelatedSubformId !== null) {
        const module = catalogue.moduleGuid.get(f.RelatedSubformId);
        if (module && module !== own) out.push({ field: f.Name, via, level: null, module });
      }
    }
  }
  return out;
}

function membersOf(tree: ModuleTree): PackageMembers {
  return {
    levels: tree.levels.map(({ level }) => ({
      guid: lower(level.Guid),
      name: level.Name,
      alias: level.Alias,
    })),
    fields: tree.levels.flatMap(({ level, fields }) =>
      fields.map((f) => ({
        guid: lower(f.Guid),
        name: f.Name,
        alias: f.Alias,
        level: lower(level.Guid),
        type: f.Type,
        active: f.IsActive,
        values: (f.ValuesListValues ?? []).map((value) => ({ guid: lower(value.Guid), name: value.Name })),
      })),
    ),
  };
}

async function readModuleTree(
  client: PlatformClient,
  module: Application,
  catalogue: Catalogue,
): Promise<ModuleTree> {
  const levels = catalogue.levels.filter((level) => level.ModuleId === module.Id);
  // Only a questionnaire's levels have questionnaire rules: an application costs no extra read.
  const questionnaire = module.Type === "Questionnaire";
  return {
    module,
    levels: await Promise.all(
      levels.map(async (level) => {
        const [fields, layout, rules, questionnaireRules] = await Promise.all([
          client.metadata.fieldDefinitions(level.Id) as Promise<FieldDefinition[]>,
          // A level without a layout answers 404; any other failure is a failed read, not "no
          // layout" (a fault taken for an empty layout made a converged target look changed).
          (client.metadata.levelLayout(level.Id) as Promise<LevelLayout>).catch((error: unknown) => {
            if (error instanceof NotFoundError) return undefined;
            throw error;
          }),
          client.metadata.eventRulesByLevel(level.Id) as Promise<EventRule[]>,
          questionnaire
            ? (client.metadata.questionnaireRulesByLevel(level.Id) as Promise<QuestionnaireRule[]>)
            : undefined,
        ]);
        const withActions = await Promise.all(
          rules.map(async (rule) => ({
            rule,
            actions: (await client.metadata.eventActionsByRule(rule.Id)) as EventAction[],
          })),
        );
        return {
          level,
          fields,
          layout,
          rules: withActions,
          ...(questionnaireRules ? { questionnaireRules } : {}),
        };
      }),
    ),
  };
}

/** Normalizes a module tree into parts keyed `<part>:<guid>`, each with instance ids replaced by GUIDs. */
export function normalizeTree(tree: ModuleTree, catalogue: Catalogue): Record<string, unknown> {
  const { moduleGuid, levelGuid } = catalogue;
  const fieldGuid = new Map<number, string>();
  for (const { fields } of tree.levels)
    for (const field of fields) fieldGuid.set(field.Id, lower(field.Guid));
  const field = (id: number) => fieldGuid.get(id) ?? `unknown-field:${id}`;

  const { module } = tree;
  const parts: Record<string, unknown> = {
    [`module:${lower(module.Guid)}`]: {
      Alias: module.Alias,
      Name: module.Name,
      Description: module.Description ?? null,
      Type: module.Type,
      KeepLicensed: module.KeepLicensed,
      IsDeprecated: module.IsDeprecated,
    },
  };
  for (const { level, fields, layout, rules, questionnaireRules } of tree.levels) {
    const levelKey = lower(level.Guid);
    parts[`level:${levelKey}`] = {
      Module: moduleGuid.get(level.ModuleId) ?? null,
      Name: level.Name,
      Alias: level.Alias,
      Description: level.Description ?? null,
      AllowFilter: level.AllowFilter,
      IsDeleted: level.IsDeleted,
    };
    for (const f of fields) {
      parts[`field:${lower(f.Guid)}`] = {
        Level: levelKey,
        Name: f.Name,
        Alias: f.Alias,
        Type: f.Type,
        IsActive: f.IsActive,
        IsRequired: f.IsRequired,
        Description: f.Description ?? null,
        Values: f.ValuesListValues.map((v) => ({ Guid: lower(v.Guid), Name: v.Name })).sort((a, b) =>
          a.Guid < b.Guid ? -1 : 1,
        ),
        References: f.ReferencedLevelIds.map((id) => levelGuid.get(id) ?? `unknown-level:${id}`).sort(),
        Subform:
          f.RelatedSubformId === null
            ? null
            : (moduleGuid.get(f.RelatedSubformId) ?? `unknown-module:${f.RelatedSubformId}`),
      };
    }
    if (layout) {
      parts[`layout:${lower(layout.Guid)}`] = {
        Level: levelKey,
        Name: layout.Name,
        Sections: layout.Sections.map((s) => ({ Name: s.Name, Fields: s.FieldIds.map(field) })),
      };
    }
    for (const { rule, actions } of rules) {
      parts[`rule:${lower(rule.Guid)}`] = {
        Level: levelKey,
        Name: rule.Name,
        Alias: rule.Alias,
        Condition: rule.Condition,
        Fields: rule.ConditionFieldIds.map(field).sort(),
        IsActive: rule.IsActive,
      };
      for (const action of actions) {
        parts[`action:${lower(action.Guid)}`] = {
          Rule: lower(rule.Guid),
          Name: action.Name,
          Alias: action.Alias,
          ActionType: action.ActionType,
          Fields: action.TargetFieldIds.map(field),
        };
      }
    }
    for (const rule of questionnaireRules ?? []) {
      parts[`questionnaireRule:${lower(rule.Guid)}`] = {
        Level: levelKey,
        Name: rule.Name,
        Alias: rule.Alias,
        Condition: rule.Condition,
        Fields: rule.ConditionFieldIds.map(field).sort(),
        Outcome: rule.Outcome,
      };
    }
  }
  return parts;
}

const PLURAL: Record<string, string | undefined> = {
  level: "levels",
  field: "fields",
  layout: "layouts",
  rule: "rules",
  action: "actions",
  questionnaireRule: "questionnaire rules",
};

function summarize(
  guid: string,
  type: PackageObjectType,
  name: string,
  parts: Record<string, unknown>,
): LivePackageObject {
  const partFingerprints: Record<string, string> = {};
  const counts: Record<string, number> = { levels: 0, fields: 0, layouts: 0, rules: 0, actions: 0 };
  for (const [key, value] of Object.entries(parts)) {
    partFingerprints[key] = sha(value);
    const colon = key.indexOf(":");
    const bucket = PLURAL[colon < 0 ? key : key.slice(0, colon)];
    if (bucket) counts[bucket] = (counts[bucket] ?? 0) + 1;
  }
  return {
    guid,
    type,
    name,
    fingerprint: objectFingerprint(partFingerprints),
    parts: counts,
    partFingerprints,
  };
}

/** An application or sub-form of the instance, as a chooser of objects to read sees it. */
export interface ModuleEntry {
  guid: string;
  type: "Application" | "SubForm";
  name: string;
}

export interface ReadObjectsOptions {
  /**
   * Whether to keep an object's parts described for people (`details`), decided once its
   * fingerprints are known: keep them only where the object differs from its counterpart.
   */
  keepDetails?: (object: LivePackageObject) => boolean;
  /**
   * Describe nothing yet: keep the trees read until the other side's fingerprints are known, then
   * `describe` the objects that differ. Most objects of a plan match, and their details would be
   * built only to be dropped.
   */
  deferDetails?: boolean;
  /** Hears which objects will be read, as soon as names are resolved (before any tree is read). */
  onRequests?: (requests: readonly ObjectRequest[]) => void;
  /** The run's earlier reads of this instance, used and added to (shared-reads.ts). */
  shared?: InstanceReads;
  /** The catalogue's read, started before (an early read), when `shared` holds none. */
  catalogue?: Promise<Catalogue>;
}

export interface PackageObjectsRead extends LivePackageSide {
  requests: ObjectRequest[];
  /**
   * With `deferDetails`: gives `details` to the objects `keep` chooses, then lets the trees go (a
   * second call describes nothing). Without it, does nothing.
   */
  describe(keep: (object: LivePackageObject) => boolean): void;
}

/**
 * Reads the named objects of one instance. Applications and sub-forms are read as whole trees.
 * Global reports have no read call: they are listed with an empty tree, so they never cause a
 * promotion on their own (docs/plan-format.md).
 */
export async function readPackageObjects(
  client: PlatformClient,
  /** The objects to read, or a function that chooses them once names are resolved. */
  wanted:
    | readonly ObjectRequest[]
    | ((names: LivePackageSide["applicationsByName"], modules: readonly ModuleEntry[]) => ObjectRequest[]),
  options: ReadObjectsOptions = {},
): Promise<PackageObjectsRead> {
  // Keyed by names and GUIDs an instance gives: no prototype, so that none reaches Object.prototype.
  const side: LivePackageSide = { objects: Object.create(null), applicationsByName: Object.create(null) };
  let trees: Map<string, ModuleTree> | undefined = options.deferDetails ? new Map() : undefined;
  let catalogue: Catalogue | undefined;
  const describe = (keep: (object: LivePackageObject) => boolean) => {
    if (!trees || !catalogue) return;
    for (const [key, tree] of trees) {
      const object = side.objects[key];
      if (object && keep(object)) object.details = describeTree(tree, catalogue);
    }
    trees = undefined;
  };
  if (Array.isArray(wanted) && wanted.length === 0) {
    options.onRequests?.([]);
    return { ...side, requests: [], describe };
  }
  const { shared } = options;
  catalogue = await readOnce(shared, "catalogue", () => options.catalogue ?? readCatalogue(client));
  const read = catalogue;
  const treeOf = (module: Application, key: string) =>
    treeOnce(shared, key, () => readModuleTree(client, module, read));
  // A questionnaire is named as an application is (it travels as one); an application of the same
  // name wins, as the platform's own application reads would find it.
  for (const type of ["Questionnaire", "Application"]) {
    for (const module of read.modules)
      if (module.Type === type) side.applicationsByName[module.Name.toLowerCase()] = lower(module.Guid);
  }
  const modules = (): ModuleEntry[] =>
    read.modules.flatMap((m) =>
      m.Type === "Application" || m.Type === "SubForm"
        ? [{ guid: lower(m.Guid), type: m.Type, name: m.Name }]
        : [],
    );
  side.catalogue = indexOf(read);
  const requests = typeof wanted === "function" ? wanted(side.applicationsByName, modules()) : [...wanted];
  // Objects whose dependencies are followed are known only once their trees are read.
  const following = requests.some((r) => r.follow);
  if (!following) options.onRequests?.(requests);
  const byGuid = new Map(read.modules.map((m) => [lower(m.Guid), m]));
  const requested = new Set(requests.map((r) => lower(r.guid)));
  const readOne = async ({ guid, type, follow }: ObjectRequest): Promise<ObjectRequest[]> => {
    const key = lower(guid);
    if (type === "GlobalReport") return [];
    const module = byGuid.get(key);
    if (!module) return [];
    const tree = await treeOf(module, key);
    const object = summarize(
      key,
      module.Type === "SubForm" ? "SubForm" : "Application",
      module.Name,
      normalizeTree(tree, read),
    );
    object.references = referencesOf(tree, read);
    object.members = membersOf(tree);
    if (trees) trees.set(key, tree);
    else if (options.keepDetails?.(object)) object.details = describeTree(tree, read);
    side.objects[key] = object;
    if (!follow) return [];
    const next: ObjectRequest[] = [];
    for (const { module: needed } of object.references) {
      const found = needed === null || requested.has(needed) ? undefined : byGuid.get(needed);
      if (!found || (found.Type !== "Application" && found.Type !== "SubForm")) continue;
      requested.add(lower(found.Guid));
      next.push({ guid: lower(found.Guid), type: found.Type, follow: true });
    }
    return next;
  };
  let batch = requests;
  while (batch.length > 0) {
    batch = (await Promise.all(batch.map(readOne))).flat();
    requests.push(...batch);
  }
  if (following) options.onRequests?.(requests);
  return { ...side, requests, describe };
}

/** One part of an object's tree (a level, field, layout, event rule or action), named for a person. */
export interface PackagePart {
  fingerprint: string;
  /** Its Name, or its key when it has none. */
  name: string;
  /** `field "Risk Score"`, `event rule "Ineffective control"`… */
  label: string;
  /** The level it belongs to (lower-case GUID), for fields and layouts; null for the others. */
  level: string | null;
}

/** An object with each of its parts by key (`field:<guid>`…), as `egp rollback` reads them. */
export interface PackageObjectParts {
  guid: string;
  type: PackageObjectType;
  name: string;
  parts: Record<string, PackagePart>;
}

const PART_LABELS: Record<string, string> = {
  module: "object",
  level: "level",
  field: "field",
  layout: "layout",
  rule: "event rule",
  action: "event action",
  questionnaireRule: "questionnaire rule",
};

/**
 * The named objects' parts with their fingerprints and names: what a snapshot holds, and what an
 * install of it can't remove. Objects the instance lacks are left out. `shared`: the run's reads
 * of the instance, used and added to (shared-reads.ts).
 */
export async function readPackageParts(
  client: PlatformClient,
  requests: readonly ObjectRequest[],
  shared?: InstanceReads,
): Promise<Record<string, PackageObjectParts>> {
  const wanted = requests.filter((r) => r.type !== "GlobalReport");
  if (wanted.length === 0) return {};
  const catalogue = await readOnce(shared, "catalogue", () => readCatalogue(client));
  const byGuid = new Map(catalogue.modules.map((m) => [lower(m.Guid), m]));
  // In the order asked for, whichever tree answers first: a snapshot's record lists them so.
  const read = await Promise.all(
    wanted.map(async ({ guid }): Promise<PackageObjectParts | undefined> => {
      const key = lower(guid);
      const module = byGuid.get(key);
      if (!module) return undefined;
      const tree = normalizeTree(
        await treeOnce(shared, key, () => readModuleTree(client, module, catalogue)),
        catalogue,
      );
      const parts: Record<string, PackagePart> = {};
      for (const [part, value] of Object.entries(tree)) {
        const { Name, Level } = value as { Name?: unknown; Level?: unknown };
        const name = typeof Name === "string" ? Name : part;
        parts[part] = {
          fingerprint: sha(value),
          name,
          label: `${PART_LABELS[part.split(":")[0] ?? ""] ?? "part"} ${JSON.stringify(name)}`,
          level: typeof Level === "string" ? Level : null,
        };
      }
      return {
        guid: key,
        type: module.Type === "SubForm" ? "SubForm" : "Application",
        name: module.Name,
        parts,
      };
    }),
  );
  const result: Record<string, PackageObjectParts> = {};
  for (const object of read) if (object) result[object.guid] = object;
  return result;
}

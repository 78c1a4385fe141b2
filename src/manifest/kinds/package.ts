import { z } from "zod";
import type { FieldSource, SourceLocation } from "../errors.ts";
import {
  INSTALL_METHOD_CODES,
  INSTALL_OPTION_CODES,
  type InstallCodeOverrides,
  type InstallWords,
  TRANSLATION_OPTION_CODES,
} from "../install-codes.ts";
import type { Reporter } from "../report.ts";
import { type DocumentRule, defineKind, optionalText, scoping, sourceOf } from "./kind.ts";

export {
  INSTALL_METHOD_CODES,
  INSTALL_OPTION_CODES,
  type InstallCodeOverrides,
  type InstallWords,
  TRANSLATION_OPTION_CODES,
} from "../install-codes.ts";

/** Each option: its manifest word, its key under `installCodes`, its wire field and assumed codes. */
const INSTALL_FIELDS = [
  { word: "method", key: "installMethod", wire: "InstallMethod", codes: INSTALL_METHOD_CODES },
  { word: "layout", key: "installOption", wire: "InstallOption", codes: INSTALL_OPTION_CODES },
  {
    word: "translations",
    key: "translationOption",
    wire: "TranslationOption",
    codes: TRANSLATION_OPTION_CODES,
  },
] as const;

export const PACKAGE_OBJECT_TYPES = ["Application", "SubForm", "GlobalReport"] as const;
export type PackageObjectType = (typeof PACKAGE_OBJECT_TYPES)[number];

const Install = z
  .strictObject({
    method: z
      .enum(["createNew", "createAndUpdate"])
      .optional()
      .describe("createNew: only create what the target lacks; createAndUpdate: also update (default)."),
    layout: z
      .enum(["keep", "override"])
      .optional()
      .describe("keep the target's layouts (default) or override them."),
    translations: z.enum(["none", "install"]).optional().describe("Install translations? (default: none)."),
  })
  .describe("Install options; each one not given comes from the package's install, then the defaults.");
type Install = z.infer<typeof Install>;

const PackageObject = z
  .strictObject({
    application: z.string().min(1).optional().describe("An application, by name (resolved on the source)."),
    guid: z.guid().optional().describe("An object by GUID; needs type."),
    type: z.enum(PACKAGE_OBJECT_TYPES).optional().describe("The type of the object named by guid."),
    install: Install.optional(),
  })
  .describe(
    "Either { application: <name> } or { guid: <GUID>, type: Application | SubForm | GlobalReport }.",
  );

export const PackageDocument = z
  .strictObject({
    kind: z.literal("Package"),
    ...scoping,
    name: z.string().min(1).describe("Key: the package's name."),
    description: optionalText("Description."),
    preparedBy: z.string().optional().describe("PreparedBy."),
    install: Install.extend({
      snapshot: z
        .boolean()
        .optional()
        .describe(
          "Package the target's current versions of the objects before installing, for egp rollback (default: true).",
        ),
    }).optional(),
    objects: z
      .array(PackageObject)
      .min(1)
      .describe("The applications, sub-forms and global reports to promote."),
    inactivateUnusedFields: z
      .boolean()
      .optional()
      .describe("Deactivate target fields the package lacks (default: false)."),
    prefixInactivatedFields: z
      .string()
      .min(1)
      .nullable()
      .optional()
      .describe("Prefix given to the names of deactivated fields; null: none."),
    includeDependencies: z
      .boolean()
      .optional()
      .describe(
        "Add from the source, transitively, the applications and sub-forms the objects' fields point at and the target lacks (default: false).",
      ),
    dependsOn: z
      .array(z.string().min(1))
      .optional()
      .describe(
        "Packages (by name) installed before this one in the same plan; their objects count as present.",
      ),
  })
  .describe("A package: objects promoted from the environment named by packagesFrom.");
export type PackageDocument = z.infer<typeof PackageDocument>;

/** A code sent for a word other than its option's default, which the environment file does not give. */
export interface AssumedInstallCode {
  /** The wire field: `InstallMethod`, `InstallOption` or `TranslationOption`. */
  field: string;
  word: string;
  code: number;
  /** Where an environment file would give it: `installCodes.installMethod.createNew`. */
  key: string;
}

/**
 * Install options in words (what they mean), and as this environment's install request codes them
 * (its `installCodes`, else the assumed codes).
 */
export interface InstallChoice extends InstallWords {
  InstallMethod: number;
  InstallOption: number;
  TranslationOption: number;
  /** Non-default words whose codes are assumed, not given by the environment file. */
  assumed: AssumedInstallCode[];
}

/** An object of a package: an application by name (resolved on the source), or anything by GUID. */
export type DesiredPackageObject = (
  | { by: "name"; type: "Application"; name: string }
  | { by: "guid"; type: PackageObjectType /** Lower case. */; guid: string }
) & { install: InstallChoice; source: SourceLocation };

export interface DesiredPackage {
  kind: "Package";
  /** Key. */
  name: string;
  description?: string | null;
  preparedBy?: string;
  objects: DesiredPackageObject[];
  inactivateUnusedFields: boolean;
  prefixInactivatedFields: string | null;
  /** Package the target's current versions first, so that `egp rollback` can undo the install. */
  snapshot: boolean;
  source: SourceLocation;
  /** The package's own install options: those of the objects `includeDependencies` adds. */
  install: InstallChoice;
  /** Where `includeDependencies: true` is written; absent when it is not. */
  includeDependencies?: FieldSource;
  /** The packages installed first, each where it is named; absent when none. */
  dependsOn?: Array<{ name: string; source: FieldSource }>;
}

const DEFAULT_INSTALL = { method: "createAndUpdate", layout: "keep", translations: "none" } as const;

function installChoice(
  given: InstallCodeOverrides | undefined,
  ...layers: (Install | undefined)[]
): InstallChoice {
  const words: InstallWords = { ...DEFAULT_INSTALL };
  for (const layer of layers)
    Object.assign(words, Object.fromEntries(Object.entries(layer ?? {}).filter(([, v]) => v)));
  const choice: InstallChoice = {
    ...words,
    InstallMethod: 0,
    InstallOption: 0,
    TranslationOption: 0,
    assumed: [],
  };
  for (const field of INSTALL_FIELDS) {
    const word = words[field.word];
    const codes: Readonly<Record<string, number | undefined>> = field.codes;
    const own: Readonly<Record<string, number | undefined>> | undefined = given?.[field.key];
    const code = own?.[word] ?? codes[word] ?? 0;
    choice[field.wire] = code;
    if (own?.[word] === undefined && word !== DEFAULT_INSTALL[field.word])
      choice.assumed.push({ field: field.wire, word, code, key: `installCodes.${field.key}.${word}` });
  }
  return choice;
}

const objectsNameOneThing: DocumentRule<PackageDocument> = (doc, report) => {
  doc.objects.forEach((object, index) => {
    const at = ["objects", index];
    if (object.application !== undefined && object.guid !== undefined)
      report.error(at, "names both an application and a guid; give one");
    else if (object.application === undefined && object.guid === undefined)
      report.error(at, "needs application: <name> or guid: <GUID> with type");
    else if (object.guid !== undefined && object.type === undefined)
      report.error(at, `type is required with guid (${PACKAGE_OBJECT_TYPES.join(", ")})`);
    else if (object.application !== undefined && object.type !== undefined)
      report.error([...at, "type"], "goes with guid; an object named by application is an Application");
  });
};

/** Null for an object that does not name exactly one thing (already reported). */
function identityOf(object: PackageDocument["objects"][number]): string | null {
  if ((object.guid === undefined) === (object.application === undefined)) return null;
  return object.guid !== undefined
    ? `guid ${object.guid.toLowerCase()}`
    : `application ${object.application}`;
}

const objectsAreListedOnce: DocumentRule<PackageDocument> = (doc, report) => {
  const seen = new Map<string, number>();
  doc.objects.forEach((object, index) => {
    const identity = identityOf(object);
    if (identity === null) return;
    const first = seen.get(identity);
    if (first === undefined) seen.set(identity, index);
    else report.error(["objects", index], `${identity} is listed twice (also objects[${first}])`);
  });
};

const dependsOnOthers: DocumentRule<PackageDocument> = (doc, report) => {
  const seen = new Set<string>();
  (doc.dependsOn ?? []).forEach((name, index) => {
    const key = name.toLowerCase();
    if (key === doc.name.toLowerCase())
      report.error(["dependsOn", index], "a package can't depend on itself");
    else if (seen.has(key)) report.error(["dependsOn", index], `"${name}" is listed twice`);
    seen.add(key);
  });
};

const prefixNeedsInactivation: DocumentRule<PackageDocument> = (doc, report) => {
  if (doc.prefixInactivatedFields && doc.inactivateUnusedFields !== true)
    report.warning(["prefixInactivatedFields"], "has no effect unless inactivateUnusedFields is true");
};

function withoutSnapshot(install: PackageDocument["install"]): Install | undefined {
  if (!install) return undefined;
  const { snapshot: _snapshot, ...defaults } = install;
  return defaults;
}

function objectOf(
  doc: PackageDocument,
  index: number,
  codes: InstallCodeOverrides | undefined,
  report: Reporter,
): DesiredPackageObject {
  const object = doc.objects[index]!;
  const install = installChoice(codes, withoutSnapshot(doc.install), object.install);
  const source = report.document.locate(["objects", index]);
  if (object.guid !== undefined)
    return { by: "guid", type: object.type!, guid: object.guid.toLowerCase(), install, source };
  return { by: "name", type: "Application", name: object.application!, install, source };
}

export const packageKind = defineKind({
  kind: "Package",
  plural: "packages",
  schema: PackageDocument,
  rules: [objectsNameOneThing, objectsAreListedOnce, dependsOnOthers, prefixNeedsInactivation],
  key: { field: "name", of: (desired: DesiredPackage) => desired.name.toLowerCase() },
  needsPackagesFrom: true,
  normalize(doc, environment, report): DesiredPackage {
    const desired: DesiredPackage = {
      kind: "Package",
      name: doc.name,
      objects: doc.objects.map((_, index) => objectOf(doc, index, environment.installCodes, report)),
      inactivateUnusedFields: doc.inactivateUnusedFields ?? false,
      prefixInactivatedFields: doc.prefixInactivatedFields ?? null,
      snapshot: doc.install?.snapshot ?? true,
      source: sourceOf(report, "name"),
      install: installChoice(environment.installCodes, withoutSnapshot(doc.install)),
    };
    if (doc.dependsOn?.length)
      desired.dependsOn = doc.dependsOn.map((name, index) => ({
        name,
        source: report.where(["dependsOn", index]),
      }));
    if (doc.includeDependencies) desired.includeDependencies = report.where(["includeDependencies"]);
    if (doc.description !== undefined) desired.description = doc.description;
    if (doc.preparedBy !== undefined) desired.preparedBy = doc.preparedBy;
    return desired;
  },
});

import { z } from "zod";
import { FIELD_TYPES, ModuleTypeSchema, PACKAGE_OBJECT_TYPES, Translation } from "../../wire/index.ts";

/*
 * The emulator's package file: a zip with `manifest.json` and one `objects/<guid>.json` per packaged
 * object (or the foreign profile's layout of the same content, zip-writer.ts). Inside a package file
 * every reference is a GUID, never an instance id: ids mean nothing on another instance. Only the
 * emulator reads it: to egp a package file is opaque (DESIGN §3).
 */

const int = z.number().int();
const text = z.string().nullable();

// ---- package file: object trees

const guid = z.string().min(1);

export const PackagedValue = z.object({ Guid: guid, Name: z.string() });

export const PackagedField = z.object({
  Guid: guid,
  Alias: z.string(),
  Name: z.string(),
  Type: int.refine((type) => FIELD_TYPES.includes(type), "not a field type code of the seed"),
  IsActive: z.boolean(),
  IsRequired: z.boolean(),
  Description: text,
  Values: z.array(PackagedValue),
  ReferencedLevelGuids: z.array(guid),
  SubformGuid: guid.nullable(),
  Translations: z.array(Translation),
});
export type PackagedField = z.infer<typeof PackagedField>;

export const PackagedLayout = z.object({
  Guid: guid,
  Name: z.string(),
  Sections: z.array(z.object({ Name: z.string(), FieldGuids: z.array(guid) })),
});
export type PackagedLayout = z.infer<typeof PackagedLayout>;

export const PackagedEventAction = z.object({
  Guid: guid,
  Alias: z.string(),
  Name: z.string(),
  ActionType: z.string(),
  TargetFieldGuids: z.array(guid),
});
export type PackagedEventAction = z.infer<typeof PackagedEventAction>;

/** A rule carries its actions: containment is how the file says which rule an action belongs to. */
export const PackagedEventRule = z.object({
  Guid: guid,
  Alias: z.string(),
  Name: z.string(),
  Condition: z.string(),
  ConditionFieldGuids: z.array(guid),
  IsActive: z.boolean(),
  Actions: z.array(PackagedEventAction),
});
export type PackagedEventRule = z.infer<typeof PackagedEventRule>;

export const PackagedQuestionnaireRule = z.object({
  Guid: guid,
  Alias: z.string(),
  Name: z.string(),
  Condition: z.string(),
  ConditionFieldGuids: z.array(guid),
  Outcome: z.string(),
});
export type PackagedQuestionnaireRule = z.infer<typeof PackagedQuestionnaireRule>;

export const PackagedLevel = z.object({
  Guid: guid,
  Alias: z.string(),
  Name: z.string(),
  Description: text,
  AllowFilter: z.boolean(),
  ASOStatus: int,
  Translations: z.array(Translation),
  Fields: z.array(PackagedField),
  Layout: PackagedLayout.nullable(),
  EventRules: z.array(PackagedEventRule),
  QuestionnaireRules: z.array(PackagedQuestionnaireRule),
});
export type PackagedLevel = z.infer<typeof PackagedLevel>;

export const PackagedModule = z.object({
  Guid: guid,
  Alias: z.string(),
  Name: z.string(),
  Description: text,
  Type: ModuleTypeSchema,
  KeepLicensed: z.boolean(),
  IsDeprecated: z.boolean(),
  /** Questionnaires: the GUID of their target cross-reference field; null otherwise. */
  TargetFieldGuid: guid.nullable(),
  Translations: z.array(Translation),
  Levels: z.array(PackagedLevel),
});
export type PackagedModule = z.infer<typeof PackagedModule>;

export const PackagedReport = z.object({
  Guid: guid,
  Alias: z.string(),
  Name: z.string(),
  Description: text,
  LevelGuid: guid,
  FieldGuids: z.array(guid),
});
export type PackagedReport = z.infer<typeof PackagedReport>;

/** `objects/<guid>.json`: one packaged object with its whole metadata tree. */
export const PackageObjectFile = z.discriminatedUnion("Type", [
  z.object({ Type: z.literal("Application"), Module: PackagedModule }),
  z.object({ Type: z.literal("SubForm"), Module: PackagedModule }),
  z.object({ Type: z.literal("GlobalReport"), Report: PackagedReport }),
]);
export type PackageObjectFile = z.infer<typeof PackageObjectFile>;

// ---- package file: manifest

export const PACKAGE_FORMAT_VERSION = 1;

export const PackageManifestObject = z.object({
  Guid: guid,
  Type: z.enum(PACKAGE_OBJECT_TYPES),
  Name: z.string(),
  /** Always `objects/<Guid>.json`. */
  File: z.string(),
});
export type PackageManifestObject = z.infer<typeof PackageManifestObject>;

/** `manifest.json`. */
export const PackageManifest = z.object({
  FormatVersion: z.literal(PACKAGE_FORMAT_VERSION),
  Name: z.string().min(1),
  Description: text,
  PreparedBy: text,
  SourceInstance: z.string(),
  SourceRelease: z.string(),
  CreatedDate: z.string(),
  Objects: z.array(PackageManifestObject).min(1),
});
export type PackageManifest = z.infer<typeof PackageManifest>;

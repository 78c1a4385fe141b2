import { z } from "zod";
import { ValidationMessage } from "./envelope.ts";
import { FIELD_TYPES, ModuleTypeSchema, Translation } from "./metadata.ts";

/*
 * Package automation: the create and install bodies of the seed, and the package file format
 * (a zip with `manifest.json` and one `objects/<guid>.json` per packaged object). Inside a package
 * file every reference is a GUID, never an instance id: ids mean nothing on another instance.
 */

const int = z.number().int();
const text = z.string().nullable();

export const PACKAGE_OBJECT_TYPES = ["Application", "GlobalReport", "SubForm"] as const;
export type PackageObjectType = (typeof PACKAGE_OBJECT_TYPES)[number];

/** Object types bind case-insensitively, as .NET enum binding does; anything else is a validation message. */
export const PackageObjectTypeSchema = z.preprocess((value) => {
  if (typeof value !== "string") return value;
  return PACKAGE_OBJECT_TYPES.find((type) => type.toLowerCase() === value.trim().toLowerCase()) ?? value;
}, z.enum(PACKAGE_OBJECT_TYPES));

// ---- request bodies

export const PackageObjectRef = z.object({ Guid: z.string().min(1), Type: PackageObjectTypeSchema });
export type PackageObjectRef = z.infer<typeof PackageObjectRef>;

export const PackageCreateRequest = z.object({
  Name: z.string().min(1),
  Description: text.optional(),
  PreparedBy: text.optional(),
  PackageObjects: z.array(PackageObjectRef).min(1),
});
export type PackageCreateRequest = z.infer<typeof PackageCreateRequest>;

/** `InstallMethod`: 1 creates new objects only, 2 creates new objects and updates existing ones. */
export const InstallMethod = { CreateNewOnly: 1, CreateNewAndUpdate: 2 } as const;
/** `InstallOption`: 1 keeps the target's layouts, 2 overrides them with the package's. */
export const InstallOption = { KeepTargetLayout: 1, OverrideLayout: 2 } as const;
/** `TranslationOption`: 0 installs no translations, 1 installs the package's translations. */
export const TranslationOption = { None: 0, Install: 1 } as const;

export const PackageInstallChoice = z.object({
  Guid: z.string().min(1),
  Name: text.optional(),
  Type: PackageObjectTypeSchema,
  TranslationOption: int.min(0).max(1).default(TranslationOption.None),
  InstallMethod: int.min(1).max(2).default(InstallMethod.CreateNewAndUpdate),
  InstallOption: int.min(1).max(2).default(InstallOption.OverrideLayout),
});
export type PackageInstallChoice = z.infer<typeof PackageInstallChoice>;

export const PackageInstallRequest = z.object({
  PackageId: int,
  InactivateUnusedFields: z.boolean().default(false),
  PrefixInactivatedFields: text.optional(),
  InstallOptions: z.array(PackageInstallChoice).nullable().default([]),
});
export type PackageInstallRequest = z.infer<typeof PackageInstallRequest>;

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

// ---- package status (an emulator extra: `core/package` and `core/package/<id>`)

export const PackageStatus = {
  Created: "Created",
  Generating: "Generating",
  Ready: "Ready",
  Failed: "Failed",
} as const;
export type PackageStatus = (typeof PackageStatus)[keyof typeof PackageStatus];

export const InstallStatus = {
  Queued: "Queued",
  Running: "Running",
  Succeeded: "Succeeded",
  Failed: "Failed",
} as const;
export type InstallStatus = (typeof InstallStatus)[keyof typeof InstallStatus];

export const PackageInstallJob = z.object({
  Id: int,
  Status: z.enum(["Queued", "Running", "Succeeded", "Failed"]),
  QueuedDate: z.string(),
  StartedDate: text,
  FinishedDate: text,
  ValidationMessages: z.array(ValidationMessage),
});
export type PackageInstallJob = z.infer<typeof PackageInstallJob>;

export const PackageInfo = z.object({
  Id: int,
  Name: z.string(),
  Description: text,
  PreparedBy: text,
  /** `Created` on this instance, or `Uploaded` from another. */
  Origin: z.enum(["Created", "Uploaded"]),
  Status: z.enum(["Created", "Generating", "Ready", "Failed"]),
  PackageObjects: z.array(z.object({ Guid: z.string(), Type: z.string(), Name: z.string() })),
  CreateDate: z.string(),
  GeneratedDate: text,
  /** Bytes of the package file, once there is one. */
  Size: int.nullable(),
  ValidationMessages: z.array(ValidationMessage),
  Installs: z.array(PackageInstallJob),
});
export type PackageInfo = z.infer<typeof PackageInfo>;

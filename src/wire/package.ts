import { z } from "zod";
import { ValidationMessage } from "./envelope.ts";

/*
 * Package automation: the create and install bodies of the seed. A package file is opaque to the
 * interface (and to egp): the emulator's own layout is in src/emulator/packages/file-format.ts.
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

import { z } from "zod";

const int = z.number().int();

/** `Type` values that occur in the seed; others pass, since the list is not closed. */
export const PackageObjectType = {
  Application: "Application",
  GlobalReport: "GlobalReport",
  SubForm: "SubForm",
} as const;

export const PackageObject = z.object({ Guid: z.string(), Type: z.string() });
export type PackageObject = z.infer<typeof PackageObject>;

export const PackageCreateRequest = z.object({
  Name: z.string(),
  Description: z.string(),
  PreparedBy: z.string(),
  PackageObjects: z.array(PackageObject),
});
export type PackageCreateRequest = z.infer<typeof PackageCreateRequest>;

/** DESIGN §4.3: 1 = create new only, 2 = create new and update. */
export const InstallMethod = { CreateOnly: 1, CreateAndUpdate: 2 } as const;
/** DESIGN §4.3: 1 = keep the target's layout, 2 = override it. */
export const InstallOption = { KeepLayout: 1, OverrideLayout: 2 } as const;
/** DESIGN §4.3: 0 = none, 1 = install translations. */
export const TranslationOption = { None: 0, Install: 1 } as const;

export const InstallOptionEntry = z.object({
  Guid: z.string(),
  Name: z.string(),
  Type: z.string(),
  TranslationOption: int,
  InstallMethod: int,
  InstallOption: int,
});
export type InstallOptionEntry = z.infer<typeof InstallOptionEntry>;

export const PackageInstallRequest = z.object({
  PackageId: int,
  InactivateUnusedFields: z.boolean(),
  PrefixInactivatedFields: z.string().nullable(),
  InstallOptions: z.array(InstallOptionEntry),
});
export type PackageInstallRequest = z.infer<typeof PackageInstallRequest>;

import type {
  InstallStatus,
  PackageInfo,
  PackageInstallJob,
  PackageObjectType,
  PackageStatus,
  ValidationMessage,
} from "../../wire/index.ts";
import type { Store } from "../store.ts";

/*
 * Packages in `store.data.packages` (plain JSON, persisted by `--data`). A package file's path is
 * kept relative to the emulator's workDir, so that a restart with the same `workDir` and `--data`
 * finds its files again.
 */

export interface InstallChoiceRecord {
  Guid: string;
  Type: PackageObjectType;
  TranslationOption: number;
  InstallMethod: number;
  InstallOption: number;
}

export interface InstallJobRecord {
  Id: number;
  Status: InstallStatus;
  QueuedDate: string;
  StartedDate: string | null;
  FinishedDate: string | null;
  ValidationMessages: ValidationMessage[];
  UserId: number;
  InactivateUnusedFields: boolean;
  PrefixInactivatedFields: string | null;
  Choices: InstallChoiceRecord[];
}

export interface PackageRecord {
  Id: number;
  Name: string;
  Description: string | null;
  PreparedBy: string | null;
  Origin: "Created" | "Uploaded";
  Status: PackageStatus;
  PackageObjects: Array<{ Guid: string; Type: PackageObjectType; Name: string }>;
  CreateDate: string;
  CreatedBy: number;
  GeneratedDate: string | null;
  /** Relative to workDir, e.g. `packages/7.zip`. */
  File: string | null;
  Size: number | null;
  /** Why the last generation failed. */
  ValidationMessages: ValidationMessage[];
  Installs: InstallJobRecord[];
}

export interface PackagesData {
  counters: { package: number; install: number };
  byId: Record<string, PackageRecord>;
}

export function packagesOf(store: Store): PackagesData {
  let data = store.data.packages as PackagesData | undefined;
  if (!data) {
    data = { counters: { package: 0, install: 0 }, byId: {} };
    store.data.packages = data;
  }
  return data;
}

export function packageById(store: Store, id: number): PackageRecord | undefined {
  return packagesOf(store).byId[String(id)];
}

export function allPackages(store: Store): PackageRecord[] {
  return Object.values(packagesOf(store).byId).sort((a, b) => a.Id - b.Id);
}

export function addPackage(store: Store, fields: Omit<PackageRecord, "Id">): PackageRecord {
  const data = packagesOf(store);
  data.counters.package += 1;
  const record = { Id: data.counters.package, ...fields };
  data.byId[String(record.Id)] = record;
  store.changed();
  return record;
}

function presentJob(job: InstallJobRecord): PackageInstallJob {
  const { Id, Status, QueuedDate, StartedDate, FinishedDate, ValidationMessages } = job;
  return { Id, Status, QueuedDate, StartedDate, FinishedDate, ValidationMessages };
}

export function presentPackage(record: PackageRecord): PackageInfo {
  return {
    Id: record.Id,
    Name: record.Name,
    Description: record.Description,
    PreparedBy: record.PreparedBy,
    Origin: record.Origin,
    Status: record.Status,
    PackageObjects: record.PackageObjects,
    CreateDate: record.CreateDate,
    GeneratedDate: record.GeneratedDate,
    Size: record.Size,
    ValidationMessages: record.ValidationMessages,
    Installs: record.Installs.map(presentJob),
  };
}

import { mkdirSync } from "node:fs";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { ValidationMessage } from "../../wire/index.ts";
import { type CatalogueData, catalogueOf, replaceCatalogue } from "../catalogue/model.ts";
import { HttpFailure, message } from "../failure.ts";
import type { Faults } from "../faults.ts";
import type { EmulatorOptions } from "../options.ts";
import type { Store } from "../store.ts";
import { exportObject } from "./export-tree.ts";
import type { PackageManifest, PackageObjectFile } from "./file-format.ts";
import { PACKAGE_FORMAT_VERSION } from "./file-format.ts";
import { InstallFaults } from "./install-faults.ts";
import { type InstallInput, planInstall } from "./installer.ts";
import { type InstallJobRecord, type PackageRecord, packageById, packagesOf } from "./model.ts";
import { type PackageContents, readPackageFile, type ZipLimits } from "./zip-reader.ts";
import { layoutOf, writePackageZip } from "./zip-writer.ts";

/*
 * Generate and install are asynchronous jobs, as on real instances. A generation runs on its own
 * timer; installs wait in one FIFO queue and run one at a time. `--faults jobMs=N` overrides both
 * durations, `generateMs=N` or `installMs=N` one (slow jobs for chaos runs and tests of waiting).
 * Closing the emulator cancels whatever is waiting.
 */

export interface JobContext {
  store: Store;
  options: EmulatorOptions;
  faults: Faults;
  workDir: string;
}

export const PACKAGES_DIR = "packages";

/** The install input for a job, from the package's contents and the job's recorded choices. */
export function installInputOf(contents: PackageContents, job: InstallJobRecord, now: string): InstallInput {
  return {
    objects: contents.objects,
    choices: new Map(job.Choices.map((c) => [c.Guid.toLowerCase(), c])),
    inactivateUnusedFields: job.InactivateUnusedFields,
    prefix: job.PrefixInactivatedFields,
    now,
    userId: job.UserId,
  };
}

export function zipLimitsOf(options: EmulatorOptions): ZipLimits {
  const { limits } = options;
  return {
    entries: limits.zipEntries,
    expandedBytes: limits.zipExpandedBytes,
    jsonBytes: limits.zipJsonBytes,
    jsonNodes: limits.zipJsonNodes,
  };
}

function messagesOf(error: unknown, key: string): ValidationMessage[] {
  if (error instanceof HttpFailure) return error.messages;
  return [message(key, `The job failed: ${(error as Error).message}`)];
}

export class PackageJobs {
  private readonly context: JobContext;
  private readonly abort = new AbortController();
  private readonly running = new Set<Promise<void>>();
  private queue: Promise<void> = Promise.resolve();
  private readonly installFaults: InstallFaults;

  constructor(context: JobContext) {
    this.context = context;
    this.installFaults = new InstallFaults(context.faults.spec);
    mkdirSync(join(context.workDir, PACKAGES_DIR), { recursive: true });
    this.recover();
  }

  private get store(): Store {
    return this.context.store;
  }

  private duration(kind: "generateMs" | "installMs"): number {
    const { spec } = this.context.faults;
    return spec[kind] ?? spec.jobMs ?? this.context.options.jobs[kind];
  }

  private track(work: Promise<void>): void {
    const guarded = work.catch(() => undefined);
    this.running.add(guarded);
    guarded.finally(() => this.running.delete(guarded));
  }

  /** After a `--data` restart: generations start again; installs that were cut short failed. */
  private recover(): void {
    for (const record of Object.values(packagesOf(this.store).byId)) {
      if (record.Status === "Generating") this.startGenerate(record);
      for (const job of record.Installs) {
        if (job.Status !== "Queued" && job.Status !== "Running") continue;
        job.Status = "Failed";
        job.FinishedDate = this.store.isoNow();
        job.ValidationMessages = [
          message("InstallInterrupted", "The emulator restarted before the install ran."),
        ];
        this.store.changed();
      }
    }
  }

  startGenerate(record: PackageRecord): void {
    record.Status = "Generating";
    record.ValidationMessages = [];
    this.store.changed();
    this.track(this.generate(record.Id));
  }

  enqueueInstall(packageId: number, jobId: number): void {
    const next = this.queue.then(() => this.install(packageId, jobId));
    this.queue = next.catch(() => undefined);
    this.track(next);
  }

  async close(): Promise<void> {
    this.abort.abort();
    await Promise.allSettled([...this.running, this.queue]);
  }

  /**
   * A job's record, read anew under the data file's lock (`Store.begin`): a job runs across awaits,
   * and another process may have committed the packages since, replacing the segment.
   */
  private current(packageId: number): PackageRecord | undefined {
    this.store.begin();
    return packageById(this.store, packageId);
  }

  /** An install job's record, read anew as `current` reads its package. */
  private jobOf(packageId: number, jobId: number): InstallJobRecord | undefined {
    return this.current(packageId)?.Installs.find((j) => j.Id === jobId);
  }

  private async generate(packageId: number): Promise<void> {
    await sleep(this.duration("generateMs"), undefined, { signal: this.abort.signal });
    const started = this.current(packageId);
    if (!started) return;
    let file: Pick<PackageRecord, "File" | "Size" | "GeneratedDate"> | undefined;
    let failure: unknown;
    try {
      file = await this.writeFile(started);
    } catch (error) {
      if (this.abort.signal.aborted) return;
      failure = error;
    }
    const record = this.current(packageId);
    if (!record) return;
    if (file) {
      Object.assign(record, file);
      record.Status = "Ready";
    } else {
      record.Status = "Failed";
      record.ValidationMessages = messagesOf(failure, "GenerateFailed");
    }
    this.store.changed();
  }

  /** Writes the package's file from the catalogue as it is now; what the record then says of it. */
  private async writeFile(
    record: PackageRecord,
  ): Promise<Pick<PackageRecord, "File" | "Size" | "GeneratedDate">> {
    const { store } = this;
    const layout = layoutOf(this.context.options.profile);
    const catalogue = catalogueOf(store);
    const objects: PackageObjectFile[] = [];
    for (const entry of record.PackageObjects) {
      const object = exportObject(catalogue, entry.Guid, entry.Type);
      if (!object) {
        throw new HttpFailure(
          400,
          message("PackageObjectNotFound", `${entry.Type} ${entry.Guid} no longer exists on this instance.`),
        );
      }
      objects.push(object);
    }
    const now = store.isoNow();
    const manifest: PackageManifest = {
      FormatVersion: PACKAGE_FORMAT_VERSION,
      Name: record.Name,
      Description: record.Description,
      PreparedBy: record.PreparedBy,
      SourceInstance: store.data.instance,
      SourceRelease: store.data.release,
      CreatedDate: now,
      Objects: record.PackageObjects.map((o) => ({
        Guid: o.Guid,
        Type: o.Type,
        Name: o.Name,
        File: layout.objectFile(o.Guid),
      })),
    };
    const file = `${PACKAGES_DIR}/${record.Id}.zip`;
    const path = join(this.context.workDir, file);
    await writePackageZip(path, manifest, objects, new Date(store.now()), layout);
    return { File: file, Size: (await stat(path)).size, GeneratedDate: now };
  }

  private async install(packageId: number, jobId: number): Promise<void> {
    const queued = this.jobOf(packageId, jobId);
    if (!queued) return;
    queued.Status = "Running";
    queued.StartedDate = this.store.isoNow();
    this.store.changed();
    await sleep(this.duration("installMs"), undefined, { signal: this.abort.signal });
    let messages: ValidationMessage[];
    try {
      messages = await this.apply(packageId, jobId);
    } catch (error) {
      if (this.abort.signal.aborted) return;
      messages = messagesOf(error, "InstallFailed");
    }
    const job = this.jobOf(packageId, jobId);
    if (!job) return;
    job.ValidationMessages = messages;
    job.Status = messages.length === 0 ? "Succeeded" : "Failed";
    job.FinishedDate = this.store.isoNow();
    this.store.changed();
  }

  /**
   * Reads the package, plans on a copy of the catalogue as it is once the file is read, and swaps
   * the copy in when nothing failed.
   */
  private async apply(packageId: number, jobId: number): Promise<ValidationMessage[]> {
    const gone = () => [message("PackageNotFound", `Package ${packageId} no longer exists.`)];
    const before = this.current(packageId);
    if (!before) return gone();
    const contents = await this.contentsOf(before);
    const job = this.jobOf(packageId, jobId);
    if (!job) return gone();
    const result = planInstall(
      catalogueOf(this.store).data,
      installInputOf(contents, job, this.store.isoNow()),
    );
    if (result.messages.length > 0) return result.messages;
    if (!result.changed) return [];
    const shaped = this.installFaults.shape(catalogueOf(this.store).data, result.data);
    replaceCatalogue(this.store, shaped.data);
    if (shaped.later) this.track(this.later(shaped.later));
    return [];
  }

  /** What an install fault does to the catalogue after the job ended (install-faults.ts). */
  private async later(change: { ms: number; apply(current: CatalogueData): CatalogueData | undefined }) {
    await sleep(change.ms, undefined, { signal: this.abort.signal });
    this.store.begin();
    const next = change.apply(catalogueOf(this.store).data);
    if (next) replaceCatalogue(this.store, next);
  }

  /** The validated contents of a ready package's file. */
  async contentsOf(record: PackageRecord): Promise<PackageContents> {
    if (!record.File)
      throw new HttpFailure(409, message("PackageNotReady", `Package ${record.Id} has no file yet.`));
    return readPackageFile(join(this.context.workDir, record.File), zipLimitsOf(this.context.options), {
      readAssets: false,
    });
  }
}

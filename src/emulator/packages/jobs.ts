import { mkdirSync } from "node:fs";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { PackageManifest, PackageObjectFile, ValidationMessage } from "../../wire/index.ts";
import { PACKAGE_FORMAT_VERSION } from "../../wire/index.ts";
import { catalogueOf, replaceCatalogue } from "../catalogue/model.ts";
import { HttpFailure, message } from "../failure.ts";
import type { Faults } from "../faults.ts";
import type { EmulatorOptions } from "../options.ts";
import type { Store } from "../store.ts";
import { exportObject } from "./export-tree.ts";
import { type InstallInput, planInstall } from "./installer.ts";
import { type InstallJobRecord, type PackageRecord, packageById, packagesOf } from "./model.ts";
import { type PackageContents, readPackageFile, type ZipLimits } from "./zip-reader.ts";
import { layoutOf, writePackageZip } from "./zip-writer.ts";

/*
 * Generate and install are asynchronous jobs, as on real instances. A generation runs on its own
 * timer; installs wait in one FIFO queue and run one at a time. `--faults jobMs=N` overrides both
 * durations (slow jobs for chaos runs). Closing the emulator cancels whatever is waiting.
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

  constructor(context: JobContext) {
    this.context = context;
    mkdirSync(join(context.workDir, PACKAGES_DIR), { recursive: true });
    this.recover();
  }

  private get store(): Store {
    return this.context.store;
  }

  private duration(kind: "generateMs" | "installMs"): number {
    return this.context.faults.spec.jobMs ?? this.context.options.jobs[kind];
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

  private async generate(packageId: number): Promise<void> {
    await sleep(this.duration("generateMs"), undefined, { signal: this.abort.signal });
    const record = packageById(this.store, packageId);
    if (!record) return;
    try {
      await this.writeFile(record);
      record.Status = "Ready";
    } catch (error) {
      if (this.abort.signal.aborted) return;
      record.Status = "Failed";
      record.ValidationMessages = messagesOf(error, "GenerateFailed");
    }
    this.store.changed();
  }

  private async writeFile(record: PackageRecord): Promise<void> {
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
    record.File = file;
    record.Size = (await stat(path)).size;
    record.GeneratedDate = now;
  }

  private async install(packageId: number, jobId: number): Promise<void> {
    const record = packageById(this.store, packageId);
    const job = record?.Installs.find((j) => j.Id === jobId);
    if (!record || !job) return;
    job.Status = "Running";
    job.StartedDate = this.store.isoNow();
    this.store.changed();
    await sleep(this.duration("installMs"), undefined, { signal: this.abort.signal });
    try {
      job.ValidationMessages = await this.apply(record, job);
    } catch (error) {
      if (this.abort.signal.aborted) return;
      job.ValidationMessages = messagesOf(error, "InstallFailed");
    }
    job.Status = job.ValidationMessages.length === 0 ? "Succeeded" : "Failed";
    job.FinishedDate = this.store.isoNow();
    this.store.changed();
  }

  /** Reads the package, plans on a copy, and swaps the copy in when nothing failed. */
  private async apply(record: PackageRecord, job: InstallJobRecord): Promise<ValidationMessage[]> {
    const contents = await this.contentsOf(record);
    const result = planInstall(
      catalogueOf(this.store).data,
      installInputOf(contents, job, this.store.isoNow()),
    );
    if (result.messages.length > 0) return result.messages;
    if (result.changed) replaceCatalogue(this.store, result.data);
    return [];
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

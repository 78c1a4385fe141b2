import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { finished } from "node:stream/promises";
import multipart from "@fastify/multipart";
import { writeBodyToFile } from "../../io/file-sink.ts";
import {
  PackageCreateRequest,
  PackageInstallRequest,
  type PackageObjectType,
  type ValidationMessage,
} from "../../wire/index.ts";
import { bind } from "../bind.ts";
import { catalogueOf } from "../catalogue/model.ts";
import { ok, okId } from "../envelope.ts";
import { badRequest, HttpFailure, message, notFound } from "../failure.ts";
import type { Faults } from "../faults.ts";
import { fileBody } from "../file-body.ts";
import { findPackageable } from "../packages/export-tree.ts";
import { planInstall } from "../packages/installer.ts";
import { installInputOf, PACKAGES_DIR, PackageJobs, zipLimitsOf } from "../packages/jobs.ts";
import {
  addPackage,
  allPackages,
  type InstallChoiceRecord,
  type InstallJobRecord,
  type PackageRecord,
  packageById,
  packagesOf,
  presentPackage,
} from "../packages/model.ts";
import { readPackageFile } from "../packages/zip-reader.ts";
import type { RouteContext, Routes } from "../router.ts";
import { requireAdministrator } from "../sessions.ts";
import type { SegmentContext } from "./segment-context.ts";

/*
 * Package automation: create, generate, download, upload, install (seed, `/api/core/package/...`
 * and `/platformapi/core/package/...`), plus two reads the seed does not have, so that a client
 * can poll a job: `core/package` (all packages) and `core/package/<id>` (one, with its installs);
 * the `foreign` profile has neither. Every call needs the System Administrator role.
 */

const UPLOADS_DIR = "uploads";
const api = { family: "api-core" } as const;

function packageIdParam(ctx: RouteContext, name = "packageId"): number {
  const raw = ctx.params[name] ?? "";
  if (!/^\d{1,10}$/.test(raw)) throw badRequest("InvalidId", `${name} must be a whole number.`, raw);
  return Number(raw);
}

function packageOf(ctx: RouteContext, id: number): PackageRecord {
  const record = packageById(ctx.store, id);
  if (!record) throw notFound("Package", id);
  return record;
}

function notReady(record: PackageRecord): HttpFailure {
  const why =
    record.Status === "Generating"
      ? "is still being generated; try again when generation has finished"
      : record.Status === "Failed"
        ? "failed to generate"
        : "has not been generated";
  return new HttpFailure(
    409,
    message("PackageNotReady", `Package ${record.Id} ${why}.`, { erroredValue: record.Id }),
  );
}

/** A file name for Content-Disposition: the package's name, reduced to safe characters. */
function downloadName(record: PackageRecord): string {
  const safe = record.Name.replace(/[^A-Za-z0-9._-]+/g, "_")
    .replace(/^[_.]+|_+$/g, "")
    .slice(0, 100);
  return `${safe || `package-${record.Id}`}.zip`;
}

function create(ctx: RouteContext) {
  requireAdministrator(ctx.store, ctx.session);
  const body = bind(PackageCreateRequest, ctx.body, "package");
  const catalogue = catalogueOf(ctx.store);
  const messages: ValidationMessage[] = [];
  const objects: PackageRecord["PackageObjects"] = [];
  for (const [index, ref] of body.PackageObjects.entries()) {
    const found = findPackageable(catalogue, ref.Guid, ref.Type);
    if (!found) {
      messages.push(
        message(
          "PackageObjectNotFound",
          `PackageObjects.${index}: no ${ref.Type} with GUID ${ref.Guid} exists.`,
          {
            erroredValue: ref.Guid,
          },
        ),
      );
    } else if (objects.some((o) => o.Guid.toLowerCase() === ref.Guid.toLowerCase())) {
      messages.push(
        message("DuplicatePackageObject", `PackageObjects.${index}: ${ref.Guid} is listed twice.`),
      );
    } else {
      objects.push({ Guid: ref.Guid.toLowerCase(), Type: ref.Type, Name: found.name });
    }
  }
  if (messages.length > 0) throw new HttpFailure(400, messages);
  const record = addPackage(ctx.store, {
    Name: body.Name,
    Description: body.Description ?? null,
    PreparedBy: body.PreparedBy ?? null,
    Origin: "Created",
    Status: "Created",
    PackageObjects: objects,
    CreateDate: ctx.store.isoNow(),
    CreatedBy: ctx.session?.userId ?? 0,
    GeneratedDate: null,
    File: null,
    Size: null,
    ValidationMessages: [],
    Installs: [],
  });
  return okId(record.Id);
}

function generate(ctx: RouteContext, jobs: PackageJobs) {
  requireAdministrator(ctx.store, ctx.session);
  const record = packageOf(ctx, packageIdParam(ctx));
  if (record.Origin === "Uploaded") {
    throw badRequest("PackageNotGeneratable", `Package ${record.Id} was uploaded; it is generated already.`);
  }
  if (record.Status === "Generating") throw notReady(record);
  const catalogue = catalogueOf(ctx.store);
  const missing = record.PackageObjects.filter((o) => !findPackageable(catalogue, o.Guid, o.Type));
  if (missing.length > 0) {
    throw new HttpFailure(
      400,
      missing.map((o) =>
        message("PackageObjectNotFound", `${o.Type} ${o.Guid} no longer exists.`, { erroredValue: o.Guid }),
      ),
    );
  }
  jobs.startGenerate(record);
  return ok({});
}

async function download(ctx: RouteContext, workDir: string, faults: Faults) {
  requireAdministrator(ctx.store, ctx.session);
  const record = packageOf(ctx, packageIdParam(ctx));
  if (record.Status !== "Ready" || !record.File) throw notReady(record);
  const path = join(workDir, record.File);
  const size = await stat(path).then(
    (s) => s.size,
    () => {
      throw new HttpFailure(
        410,
        message("PackageFileMissing", `The file of package ${record.Id} is no longer in the work folder.`),
      );
    },
  );
  ctx.reply.code(200).header("content-type", "application/zip");
  // Without a length, Node sends the body chunked.
  if (!faults.spec.noLength) ctx.reply.header("content-length", String(size));
  ctx.reply
    .header("content-disposition", `attachment; filename="${downloadName(record)}"`)
    // Read into a ring of reused buffers (file-body.ts): fresh buffers per read cost more CPU for a
    // large package.
    .send(fileBody(path));
  // The router returns undefined for a raw reply; fastify would then answer again unless the
  // response has ended, so the handler waits for the stream (a client that goes away ends it too).
  await finished(ctx.reply.raw).catch(() => undefined);
  return undefined;
}

/** Streams the multipart file part to disk; the size limit answers 413 and leaves no file. */
async function receive(ctx: RouteContext, temp: string, limit: number): Promise<void> {
  if (!ctx.req.isMultipart()) {
    throw new HttpFailure(
      415,
      message("UnsupportedMediaType", "Upload a package as multipart/form-data with one zip file part."),
    );
  }
  // A missing or wrong boundary, or a body that ends inside a part's headers, fails here.
  const part = await ctx.req
    .file({ limits: { fileSize: limit, files: 1, parts: 20 }, throwFileSizeLimit: false })
    .catch((error: Error) => {
      throw badRequest("MalformedMultipart", `The multipart body could not be read: ${error.message}`);
    });
  if (!part) throw badRequest("PackageFileMissing", "The upload holds no file part.");
  try {
    // Written on the main thread in small pieces while writes are fast (src/io/file-sink.ts, shared
    // with the client), which costs less CPU than a file write stream. `release` frees each request chunk once it is on disk: the HTTP parser gives
    // every chunk a buffer of its own and busboy is done with it once it has passed it on; left to
    // the garbage collector they cause many major collections.
    await writeBodyToFile(part.file, temp, { release: true });
  } catch (error) {
    await rm(temp, { force: true });
    throw badRequest("UploadFailed", `The upload could not be read: ${(error as Error).message}`);
  }
  if (part.file.truncated) {
    await rm(temp, { force: true });
    throw new HttpFailure(
      413,
      message("PackageTooLarge", `The package is larger than the limit of ${limit} bytes.`),
    );
  }
}

async function upload(ctx: RouteContext, context: SegmentContext, temp: string) {
  requireAdministrator(ctx.store, ctx.session);
  const { options, workDir, store } = context;
  await receive(ctx, temp, options.limits.uploadBytes);
  let contents: Awaited<ReturnType<typeof readPackageFile>>;
  try {
    contents = await readPackageFile(temp, zipLimitsOf(options));
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  const { manifest } = contents;
  const size = (await stat(temp)).size;
  // The lock of the request's first turn is gone: the packages are read anew before the write.
  store.begin();
  const added = addPackage(store, {
    Name: manifest.Name,
    Description: manifest.Description,
    PreparedBy: manifest.PreparedBy,
    Origin: "Uploaded",
    Status: "Ready",
    PackageObjects: manifest.Objects.map((o) => ({ Guid: o.Guid.toLowerCase(), Type: o.Type, Name: o.Name })),
    CreateDate: store.isoNow(),
    CreatedBy: ctx.session?.userId ?? 0,
    GeneratedDate: manifest.CreatedDate,
    File: null,
    Size: size,
    ValidationMessages: [],
    Installs: [],
  });
  const file = `${PACKAGES_DIR}/${added.Id}.zip`;
  await rename(temp, join(workDir, file));
  store.begin();
  const record = packageById(store, added.Id);
  if (record) {
    record.File = file;
    store.changed();
  }
  return okId(added.Id);
}

function choicesOf(record: PackageRecord, body: PackageInstallRequest): InstallChoiceRecord[] {
  const inPackage = new Map(record.PackageObjects.map((o) => [o.Guid.toLowerCase(), o.Type]));
  const messages: ValidationMessage[] = [];
  const choices: InstallChoiceRecord[] = [];
  for (const [index, option] of (body.InstallOptions ?? []).entries()) {
    const guid = option.Guid.toLowerCase();
    const type: PackageObjectType | undefined = inPackage.get(guid);
    const where = `InstallOptions.${index}`;
    if (!type) {
      messages.push(
        message("PackageObjectNotInPackage", `${where}: ${option.Guid} is not in package ${record.Id}.`),
      );
    } else if (type !== option.Type) {
      messages.push(message("ObjectTypeMismatch", `${where}: ${option.Guid} is a ${type} in the package.`));
    } else if (choices.some((c) => c.Guid === guid)) {
      messages.push(message("DuplicateInstallOption", `${where}: ${option.Guid} has options twice.`));
    } else {
      const { TranslationOption, InstallMethod, InstallOption } = option;
      choices.push({ Guid: guid, Type: type, TranslationOption, InstallMethod, InstallOption });
    }
  }
  if (messages.length > 0) throw new HttpFailure(400, messages);
  return choices;
}

async function install(ctx: RouteContext, jobs: PackageJobs) {
  requireAdministrator(ctx.store, ctx.session);
  const body = bind(PackageInstallRequest, ctx.body, "install");
  const ready = packageOf(ctx, body.PackageId);
  if (ready.Status !== "Ready") throw notReady(ready);
  const { store } = ctx;
  // A dry run against the target as it is now answers missing references at once; the job checks
  // again when it runs, since installs queued before it may change the target.
  const contents = await jobs.contentsOf(ready);
  // The lock of the request's first turn is gone: the package is read anew before the write.
  store.begin();
  const record = packageOf(ctx, body.PackageId);
  const job: InstallJobRecord = {
    Id: packagesOf(store).counters.install + 1,
    Status: "Queued",
    QueuedDate: store.isoNow(),
    StartedDate: null,
    FinishedDate: null,
    ValidationMessages: [],
    UserId: ctx.session?.userId ?? 0,
    InactivateUnusedFields: body.InactivateUnusedFields,
    PrefixInactivatedFields: body.PrefixInactivatedFields ?? null,
    Choices: choicesOf(record, body),
  };
  const dryRun = planInstall(catalogueOf(store).data, installInputOf(contents, job, store.isoNow()));
  if (dryRun.messages.length > 0) throw new HttpFailure(400, dryRun.messages);
  packagesOf(store).counters.install = job.Id;
  record.Installs.push(job);
  store.changed();
  jobs.enqueueInstall(record.Id, job.Id);
  return ok({});
}

/** Removes upload leftovers of an earlier run (a crash mid-upload) from a reused workDir. */
function prepareUploads(workDir: string): string {
  const dir = join(workDir, UPLOADS_DIR);
  mkdirSync(dir, { recursive: true });
  for (const name of readdirSync(dir)) rmSync(join(dir, name), { force: true, recursive: true });
  return dir;
}

export async function registerPackages(routes: Routes, context: SegmentContext): Promise<void> {
  await context.app.register(multipart, { throwFileSizeLimit: false });
  const jobs = new PackageJobs(context);
  context.app.addHook("onClose", () => jobs.close());
  const uploads = prepareUploads(context.workDir);
  let uploadCount = 0;

  routes.post("/core/package", create, api);
  routes.post("/core/package/generate/:packageId", (ctx) => generate(ctx, jobs), api);
  routes.read(
    "/core/package/download/:packageId",
    (ctx) => download(ctx, context.workDir, context.faults),
    api,
  );
  routes.post(
    "/core/package/upload",
    (ctx) => {
      uploadCount += 1;
      return upload(ctx, context, join(uploads, `upload-${uploadCount}.zip`));
    },
    api,
  );
  routes.post("/core/package/install", (ctx) => install(ctx, jobs), api);

  // The interface description has no package read: an instance egp has never seen may not either.
  if (context.options.profile === "foreign") return;
  routes.read(
    "/core/package",
    (ctx) => {
      requireAdministrator(ctx.store, ctx.session);
      return allPackages(ctx.store).map((p) => ok(presentPackage(p)));
    },
    api,
  );
  routes.read(
    "/core/package/:packageId",
    (ctx) => {
      requireAdministrator(ctx.store, ctx.session);
      return ok(presentPackage(packageOf(ctx, packageIdParam(ctx))));
    },
    api,
  );
}

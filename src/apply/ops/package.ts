import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { PlatformClient } from "../../client/client.ts";
import { notOffered, OutcomeUnknownError, PlatformError } from "../../client/errors.ts";
import type { Progress } from "../../client/progress.ts";
import { promotePackage } from "../../client/promote.ts";
import type { PackageRead } from "../../client/resources/packages.ts";
import { BUILT_IN_STEP_INPUTS, installName, type StepInputOf } from "../../plan/index.ts";
import { objectMatches } from "../../plan/package-diff.ts";
import {
  instanceReads,
  type LivePackageObject,
  readPackageObjects,
  readPackageParts,
} from "../../state/index.ts";
import { StoreError } from "../../store/index.ts";
import {
  ArtifactError,
  artifactPath,
  artifactsDir,
  inspectPackage,
  store,
  verifiedArtifact,
} from "../artifacts.ts";
import { ApplyError } from "../errors.ts";
import { firstSnapshot, listHistory, publishInstall } from "../history.ts";
import { poll as pollUntil } from "../poll.ts";
import { ReleaseRecord, readRelease, writeRelease } from "../releases.ts";
import { UNDESCRIBED_VERIFY, verifyStable } from "../stable-reads.ts";
import { inputOf, type OpContext, type OpHandler } from "./types.ts";

/*
 * A package moves in six steps: create, generate and download on the source; upload, install and
 * verify on the target. Unless turned off, three more take a snapshot of the target's current
 * versions first (snapshot, snapshot-generate, snapshot-download, on the target), and the install
 * writes a release record (../releases.ts) before it asks for the install. Each step's output
 * (package ids, the artifacts' digests) is journaled, so a resumed apply reuses the packages it
 * created and the files it downloaded. A rollback runs upload (of a kept snapshot), install and
 * rollback-verify.
 */

const change = (context: OpContext) => context.step.change;
const outputOf = (context: OpContext, verb: string, key: string): unknown =>
  context.outputOf(`${change(context)}#${verb}`)?.[key];

function packageIdFrom(context: OpContext, verb: string): number {
  const id = outputOf(context, verb, "packageId");
  if (typeof id !== "number")
    throw new ApplyError("EGP_STEP_INPUT_MISSING", `${change(context)}: the ${verb} step left no package id`);
  return id;
}

/** The plan id in the description is how a resumed run finds the package it created. */
function marker(context: OpContext): string {
  const snapshot = context.step.op === "package.snapshot" ? " snapshot" : "";
  return `[egp ${context.step.id.split("#")[0]}${snapshot} ${context.planId}]`;
}

/** Instances of this run that answered that they have no package list: asked once. */
const withoutList = new WeakSet<PlatformClient>();

/**
 * Packages of this instance, where it offers a package list (not in the interface description);
 * undefined where not. It only speeds things up (finding a package an earlier try made, seeing a
 * job's state): every caller has a way that needs no list.
 */
async function listPackages(context: OpContext): Promise<PackageRead[] | undefined> {
  const { client } = context;
  if (withoutList.has(client)) return undefined;
  try {
    return await client.packages.list();
  } catch (error) {
    if (!notOffered(error)) throw error;
    withoutList.add(client);
    context.logger.debug({ env: context.step.environment }, "the instance has no package list");
    return undefined;
  }
}

async function findCreated(context: OpContext): Promise<number | undefined> {
  const packages = await listPackages(context);
  const mark = marker(context);
  return packages
    ?.filter((p) => p.Origin === "Created" && p.Description?.includes(mark))
    .sort((a, b) => b.Id - a.Id)[0]?.Id;
}

type PackageRequest = Parameters<OpContext["client"]["packages"]["create"]>[0];

/** Creates a package, or, where an earlier try may have, finds it by the marker in its description. */
async function createOnce(context: OpContext, request: PackageRequest): Promise<Record<string, unknown>> {
  if (context.resumed) {
    const existing = await findCreated(context);
    if (existing !== undefined) return { packageId: existing, reused: true };
  }
  try {
    return { packageId: await context.client.packages.create(request) };
  } catch (error) {
    if (!(error instanceof OutcomeUnknownError)) throw error;
    const existing = await findCreated(context);
    if (existing === undefined) throw error;
    return { packageId: existing, reused: true };
  }
}

const create: OpHandler = async (context) => {
  const input = inputOf(context, "package.create");
  return createOnce(context, {
    Name: input.name,
    Description: [input.description, marker(context)].filter(Boolean).join(" "),
    PreparedBy: input.preparedBy,
    PackageObjects: input.objects.map((o) => ({ Guid: o.guid, Type: o.type })),
  });
};

/** The package of the target's current versions, made on the target itself. */
const snapshot: OpHandler = async (context) => {
  const input = inputOf(context, "package.snapshot");
  return createOnce(context, {
    Name: input.name,
    Description: `Snapshot of ${context.step.environment} before ${change(context)} ${marker(context)}`,
    PreparedBy: "egp",
    PackageObjects: input.objects.map((o) => ({ Guid: o.guid, Type: o.type })),
  });
};

const generateAfter =
  (createVerb: string): OpHandler =>
  async (context) => {
    const packageId = packageIdFrom(context, createVerb);
    if (context.resumed) {
      const status = (await listPackages(context))?.find((p) => p.Id === packageId)?.Status;
      if (status === "Generating" || status === "Ready") return { packageId };
    }
    try {
      await context.client.packages.generate(packageId);
    } catch (error) {
      // Without a package list, a resumed run learns that an earlier try started the job here.
      if (!(context.resumed && notReady(error))) throw error;
    }
    return { packageId };
  };

function notReady(error: unknown): boolean {
  return (
    error instanceof PlatformError &&
    (error.status === 409 || error.validationMessages.some((m) => m.MessageKey === "PackageNotReady"))
  );
}

/**
 * Waits with growing pauses until `attempt` stops failing with a not-ready answer, within the
 * step's environment's `timeouts.job` or `timeouts.verify`.
 */
async function poll<T>(
  context: OpContext,
  what: string,
  limit: "job" | "verify",
  attempt: () => Promise<T | undefined>,
  capMs = Number.POSITIVE_INFINITY,
): Promise<T> {
  // The client reports the wait as it goes, so that a long job is never silent.
  const endWait = context.client.waiting(what);
  try {
    return await pollUntil(
      {
        what,
        limitMs: Math.min(capMs, limit === "job" ? context.timeouts.jobMs : context.timeouts.verifyMs),
        limitName: `timeouts.${limit} of ${context.step.environment}`,
        firstPauseMs: context.timeouts.pollMs,
        // A job's first read comes after a pause: one read right after asking finds it running.
        waitFirst: limit === "job",
        sleep: context.sleep,
        onPause: () => context.progress(`waiting for ${what}`),
      },
      attempt,
    );
  } finally {
    endWait();
  }
}

/**
 * Downloads the package made by `createVerb` into the artifact cache; returns its digest. With
 * `pipelineTo` (a promotion whose upload goes to another environment) it uploads the same bytes
 * there while the download runs (promotePackage). The file is inspected once complete: a package
 * that fails fails this step, so install (which takes its id from the upload step, fed by this
 * step's output) never sees it, pipelined or not. An upload that did not complete here is made by
 * the upload step from the file.
 */
async function downloadInto(
  context: OpContext,
  createVerb: string,
  pipelineTo?: { client: PlatformClient; name: string },
) {
  const packageId = packageIdFrom(context, createVerb);
  const name = createHash("sha256").update(context.step.id).digest("hex").slice(0, 16);
  const partial = join(artifactsDir(context.stateDir), `download-${name}.zip`);
  let uploaded: number | undefined;
  let digest: string | undefined;
  let sentOn = false;
  const bytes = await poll(context, "the package to be generated", "job", async () => {
    try {
      const onDownload = (p: Progress) => context.progress("downloading", p.bytes, p.total);
      if (!pipelineTo) {
        const downloaded = await context.client.packages.download(packageId, partial, {
          onProgress: onDownload,
        });
        digest = downloaded.sha256;
        return downloaded.bytes;
      }
      const result = await promotePackage(context.client, pipelineTo.client, packageId, partial, {
        fileName: `${name}.zip`,
        onDownload,
        // This step's line, not the upload step's: it says where the bytes go as they arrive.
        onUpload: (p) => {
          sentOn = true;
          context.progress(`sending on to ${pipelineTo.name} as it downloads: uploaded`, p.bytes, p.total);
        },
      });
      uploaded = result.uploaded;
      digest = result.sha256;
      // An "uploaded N KiB" line said of a copy that did not complete (a refusal, a failure) is taken back.
      if (sentOn && uploaded === undefined)
        context.progress(
          `not sent on to ${pipelineTo.name} as it downloaded; the upload step sends the file`,
        );
      if (result.pipelined && uploaded === undefined) {
        context.logger.info(
          { step: context.step.id, error: result.uploadError },
          "the upload alongside the download did not complete; the upload step sends the file",
        );
      }
      return result.bytes;
    } catch (error) {
      if (notReady(error)) return undefined;
      throw error;
    }
  });
  const sha256 = await store(context.stateDir, partial, digest);
  try {
    await inspectPackage(artifactPath(context.stateDir, sha256));
  } catch (error) {
    rmSync(artifactPath(context.stateDir, sha256), { force: true });
    if (uploaded === undefined || !(error instanceof ArtifactError)) throw error;
    throw new ApplyError(
      "EGP_ARTIFACT_REJECTED",
      `${error.message}; not installed (its copy uploaded alongside the download is package ${uploaded} on the target, left uninstalled)`,
      { cause: error },
    );
  }
  return { packageId, artifact: sha256, bytes, ...(uploaded !== undefined ? { uploaded } : {}) };
}

const download: OpHandler = async (context) => {
  const upload = `${change(context)}#upload`;
  const target = context.clientOfStep(upload);
  const pipelineTo =
    target && target !== context.client
      ? { client: target, name: context.environmentOfStep?.(upload) ?? "the target" }
      : undefined;
  return downloadInto(context, "create", pipelineTo);
};

/**
 * The snapshot's file, and the fingerprint of every part of its objects as the target has them
 * now (nothing writes them before the install, which waits for this step): what a rollback
 * restores and then checks. The trees are the plan's, read moments before in this run, unless
 * an install or a person's answer came between (docs/apply.md).
 */
const snapshotDownload: OpHandler = async (context) => {
  const { objects } = inputOf(context, "package.snapshot-download");
  const downloaded = await downloadInto(context, "snapshot");
  const parts = await readPackageParts(
    context.client,
    objects.map((guid) => ({ guid, type: "Application" as const })),
    context.reads.of(context.step.environment),
  );
  return {
    ...downloaded,
    takenAt: new Date().toISOString(),
    objects: Object.values(parts).map((o) => ({
      guid: o.guid,
      type: o.type,
      name: o.name,
      parts: Object.fromEntries(Object.entries(o.parts).map(([key, part]) => [key, part.fingerprint])),
    })),
  };
};

/**
 * A release's file, from the release store into the artifact cache: the store checks the bytes
 * against the sha256 the release file records, and the file is inspected as a download is.
 */
const fetch: OpHandler = async (context) => {
  const input = inputOf(context, "package.fetch");
  const { store } = context;
  if (!store)
    throw new ApplyError(
      "EGP_STEP_INPUT_MISSING",
      `${context.step.id}: release ${input.release} needs the release store, and this run has none`,
    );
  const file = artifactPath(context.stateDir, input.sha256);
  const kept = await verifiedArtifact(context.stateDir, input.sha256).then(
    () => true,
    () => false,
  );
  if (!kept) {
    context.progress("fetching from the release store", 0, input.size);
    await store.getFile(input.sha256, file).catch((error: unknown) => {
      if (!(error instanceof StoreError)) throw error;
      throw new ApplyError(
        "EGP_RELEASE_UNUSABLE",
        `release ${input.release}: ${error.message}; nothing was installed`,
        { cause: error },
      );
    });
  }
  await inspectPackage(await verifiedArtifact(context.stateDir, input.sha256));
  return { artifact: input.sha256, bytes: input.size };
};

/** The package file a promotion installs: downloaded from the source, or fetched from the store. */
const artifactOf = (context: OpContext): unknown =>
  outputOf(context, "download", "artifact") ?? outputOf(context, "fetch", "artifact");

const upload: OpHandler = async (context) => {
  const { artifact } = inputOf(context, "package.upload");
  // A promotion's package was sent alongside its download, whose step passed only once the file
  // passed inspection. A rollback uploads the snapshot named by its input.
  const pipelined = artifact === undefined ? outputOf(context, "download", "uploaded") : undefined;
  if (typeof pipelined === "number") return { packageId: pipelined, pipelined: true };
  const sha256 = artifact ?? artifactOf(context);
  if (typeof sha256 !== "string")
    throw new ApplyError("EGP_STEP_INPUT_MISSING", `${change(context)}: the download step left no artifact`);
  const packageId = await context.client.packages.upload(await verifiedArtifact(context.stateDir, sha256), {
    fileName: `${sha256.slice(0, 12)}.zip`,
    onProgress: (p) => context.progress("uploading", p.bytes, p.total),
  });
  return { packageId };
};

/** The last install job of a package, where the instance reports them (not in the seed). */
async function lastInstall(context: OpContext, packageId: number) {
  const packages = await listPackages(context);
  if (!packages) return undefined;
  return { job: packages.find((p) => p.Id === packageId)?.Installs?.at(-1) };
}

/**
 * One record per run of a plan and package: a resumed install finds the record it wrote; the same
 * plan applied again after it completed (after a rollback) is a new install, with a record of its own.
 */
function releaseId(context: OpContext): string {
  const run = context.run === context.planId ? "" : `\0${context.run}`;
  return createHash("sha256")
    .update(`${context.step.environment}\0${change(context)}\0${context.planId}${run}`)
    .digest("hex")
    .slice(0, 12);
}

/** What the snapshot-download step journaled of the snapshot's objects. */
const SnapshotObjects = ReleaseRecord.shape.snapshot.unwrap().shape.objects;

/** The release record of a promotion, written before its install is asked for. */
async function recordRelease(
  context: OpContext,
  release: NonNullable<StepInputOf<"package.install">["release"]>,
  packageId: number,
): Promise<ReleaseRecord> {
  const id = releaseId(context);
  const earlier = readRelease(context.stateDir, context.step.environment, id);
  if (earlier) {
    if (context.store) await publishInstall(context.store, context.stateDir, earlier);
    return earlier;
  }
  const digest = artifactOf(context);
  const name = change(context).split("/").slice(1).join("/");
  const taken = context.outputOf(`${change(context)}#snapshot-download`);
  const history = context.store ? await listHistory(context.store, context.step.environment) : [];
  const kept = firstSnapshot(history, name, String(digest));
  const record: ReleaseRecord = {
    formatVersion: 1,
    id,
    environment: context.step.environment,
    sourceEnvironment: release.from,
    ...(release.release ? { release: release.release } : {}),
    plan: context.planId,
    package: { name, digest: String(digest) },
    snapshot: kept
      ? kept
      : taken
        ? {
            digest: String(taken.artifact),
            takenAt: String(taken.takenAt),
            objects: SnapshotObjects.parse(taken.objects),
          }
        : null,
    packageId,
    created: release.created,
    startedAt: new Date().toISOString(),
    installedAt: null,
    rollbacks: [],
  };
  writeRelease(context.stateDir, record);
  if (context.store) await publishInstall(context.store, context.stateDir, record);
  return record;
}

/** Writes the record here and to the store, where every machine's history reads it. */
async function saveRecord(context: OpContext, record: ReleaseRecord): Promise<void> {
  writeRelease(context.stateDir, record);
  if (context.store) await publishInstall(context.store, context.stateDir, record);
}

/** A refusal of the install request, or a failed job: nothing of that install runs any more. */
function installEnded(error: unknown): boolean {
  if (error instanceof ApplyError) return error.code === "EGP_INSTALL_FAILED";
  return (
    error instanceof PlatformError &&
    !(error instanceof OutcomeUnknownError) &&
    error.status !== undefined &&
    error.status >= 400 &&
    error.status < 500
  );
}

/** An install changes the target's trees: what the run read of them is read again after it. */
const install: OpHandler = async (context) => {
  const forget = () => context.reads.forget(context.step.environment);
  forget();
  try {
    return await installPackage(context);
  } finally {
    forget();
  }
};

/** Asks the target to install the uploaded package with the plan's options. */
export async function askInstall(
  context: OpContext,
  packageId: number,
  input: StepInputOf<"package.install">,
): Promise<void> {
  await context.client.packages.install({
    PackageId: packageId,
    InactivateUnusedFields: input.inactivateUnusedFields,
    PrefixInactivatedFields: input.prefixInactivatedFields,
    InstallOptions: input.objects.map((o) => ({
      Guid: o.guid,
      Name: o.name,
      Type: o.type,
      TranslationOption: o.translationOption,
      InstallMethod: o.installMethod,
      InstallOption: o.installOption,
    })),
  });
}

/**
 * Waits for the package's last install job. Where the instance reports install jobs (not in the
 * seed), a failed job fails the step at once; elsewhere the verify's reads see the install's end.
 */
export async function installJob(context: OpContext, packageId: number): Promise<string> {
  return poll(context, "the install job", "job", async () => {
    const installs = await lastInstall(context, packageId);
    if (!installs) return "unknown";
    const latest = installs.job;
    if (!latest || latest.Status === "Queued" || latest.Status === "Running") return undefined;
    if (latest.Status === "Failed") {
      const why = latest.ValidationMessages.map((m) => m.Description).join("; ");
      throw new ApplyError(
        "EGP_INSTALL_FAILED",
        `install of package ${packageId} failed: ${why || "no reason given"}`,
        {
          messageKeys: latest.ValidationMessages.map((m) => m.MessageKey).filter((k): k is string =>
            Boolean(k),
          ),
        },
      );
    }
    return latest.Status;
  });
}

const installPackage: OpHandler = async (context) => {
  const packageId = packageIdFrom(context, "upload");
  const input = inputOf(context, "package.install");
  let release = input.release ? await recordRelease(context, input.release, packageId) : undefined;
  try {
    // An install that may have been asked for already is never asked for twice: its job is waited for.
    const earlier = context.resumed ? (await lastInstall(context, packageId))?.job : undefined;
    if (!earlier || earlier.Status === "Failed") {
      if (release?.failedAt) {
        const { failedAt: _ended, ...asked } = release;
        release = asked;
        await saveRecord(context, release);
      }
      await askInstall(context, packageId, input);
    }
    const job = await installJob(context, packageId);
    if (release && release.installedAt === null)
      await saveRecord(context, { ...release, installedAt: new Date().toISOString() });
    return { packageId, job, ...(release ? { release: release.id } : {}) };
  } catch (error) {
    if (release && installEnded(error))
      await saveRecord(context, { ...release, failedAt: new Date().toISOString() });
    throw error;
  }
};

/**
 * Reads until nothing differs, within the verify time: what still differs then fails the step
 * (VerifyFailed). A read that fails is not a difference: its error goes to the executor as it is,
 * which tries the step again when the failure passes (a transient fault) and otherwise reports it.
 */
async function verifyUntilSame(
  context: OpContext,
  what: string,
  differingNow: () => Promise<string[]>,
  failure: (differing: string[]) => string,
  capMs = Number.POSITIVE_INFINITY,
): Promise<void> {
  let differing: string[] = [];
  const limitMs = Math.min(capMs, context.timeouts.verifyMs);
  try {
    await poll(
      context,
      what,
      "verify",
      async () => {
        differing = await differingNow();
        return differing.length === 0 ? true : undefined;
      },
      capMs,
    );
  } catch (error) {
    if (!(error instanceof ApplyError && error.code === "EGP_JOB_TIMEOUT")) throw error;
    const limit =
      limitMs < context.timeouts.verifyMs
        ? "the rollback check's bound"
        : `timeouts.verify of ${context.step.environment}`;
    const waited = `checked for ${Math.round(limitMs / 1000)} s, ${limit}`;
    throw new ApplyError("EGP_VERIFY_FAILED", `${failure(differing)} (${waited})`, { cause: error });
  }
}

/** The install step's input, where this run's plan has it: what a re-install asks for again. */
function installInputOf(context: OpContext): StepInputOf<"package.install"> | undefined {
  const step = context.stepOf?.(`${change(context)}#install`);
  if (step?.op !== "package.install") return undefined;
  const parsed = BUILT_IN_STEP_INPUTS["package.install"].safeParse(step.input);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Stable reads of the installed objects (../stable-reads.ts), re-installing from the same file
 * when they do not converge. Each read is afresh; the read that found the objects matching is kept
 * for the final plan, unless another install began since (shared-reads.ts `keep`).
 */
const verify: OpHandler = async (context) => {
  const { objects } = inputOf(context, "package.verify");
  const environment = context.step.environment;
  const settings = context.verify ?? UNDESCRIBED_VERIFY;
  const install = installInputOf(context);
  const endWait = context.client.waiting("the installed objects to match the source");
  try {
    const result = await verifyStable({
      read: async () => {
        const since = context.reads.of(environment);
        const reads = instanceReads();
        const side = await readPackageObjects(
          context.client,
          objects.map((o) => ({ guid: o.guid, type: "Application" as const })),
          { shared: reads, keepDetails: () => true },
        );
        const differing = objects.flatMap((o) => {
          const live = side.objects[o.guid.toLowerCase()];
          const options = { installMethod: o.installMethod ?? 2, installOption: o.installOption ?? 1 };
          const expected = o.parts ?? {};
          return objectMatches(asExpected(o.guid, o.name, expected), live, options)
            ? []
            : [`${o.name}${partsNamed(differingParts(expected, live, options), live)}`];
        });
        if (differing.length === 0) context.reads.keep(environment, reads, since);
        const state = objects
          .map((o) => side.objects[o.guid.toLowerCase()]?.fingerprint ?? "absent")
          .join(",");
        return { differing, state };
      },
      ...settings,
      overallMs: context.timeouts.verifyMs,
      overallName: `timeouts.verify of ${environment}`,
      firstPauseMs: context.timeouts.pollMs,
      ...(install
        ? {
            reinstall: async (pass: number) => {
              const packageId = packageIdFrom(context, "upload");
              context.progress(
                `installing package ${packageId} again (pass ${pass}): parts had not converged`,
              );
              context.reads.forget(environment);
              try {
                await askInstall(context, packageId, install);
                await installJob(context, packageId);
              } finally {
                context.reads.forget(environment);
              }
            },
          }
        : {}),
      sleep: context.sleep,
      onPause: (what) => context.progress(`waiting for ${what}`),
    }).catch(async (error: unknown) => {
      if (error instanceof ApplyError && error.code === "EGP_INSTALL_DIVERGED")
        await recordVerdict(context, "diverged", error.passes ?? 1);
      throw error;
    });
    await recordVerdict(context, result.verdict, result.passes);
    return {
      verified: objects.map((o) => o.name),
      verdict: result.verdict,
      passes: result.passes,
      ...(result.reinstalledFor.length > 0 ? { reinstalledFor: result.reinstalledFor } : {}),
    };
  } finally {
    endWait();
  }
};

/** The install's history record (its release record) carries the verification's verdict. */
async function recordVerdict(context: OpContext, verdict: string, passes: number): Promise<void> {
  const id = outputOf(context, "install", "release");
  if (typeof id !== "string") return;
  const record = readRelease(context.stateDir, context.step.environment, id);
  if (!record) return;
  await saveRecord(context, { ...record, verification: { verdict, passes, at: new Date().toISOString() } });
}

function asExpected(guid: string, name: string, parts: Record<string, string>) {
  return {
    guid,
    type: "Application" as const,
    name,
    fingerprint: "",
    parts: {},
    partFingerprints: parts,
  };
}

/** The parts whose live fingerprint is not the expected one (as objectMatches compares them). */
function differingParts(
  expected: Record<string, string>,
  live: LivePackageObject | undefined,
  options: { installMethod: number; installOption: number },
): string[] {
  if (!live) return [];
  return Object.entries(expected)
    .filter(([part, fingerprint]) => {
      const other = live.partFingerprints[part];
      if (other === undefined) return true;
      if (other === fingerprint || options.installMethod === 1) return false;
      return !(part.startsWith("layout:") && options.installOption === 1);
    })
    .map(([part]) => part);
}

/** ` (field "Owner (recalculated)", layout missing)`: the parts as the instance names them now. */
function partsNamed(parts: readonly string[], live: LivePackageObject | undefined): string {
  if (!live) return " (not on the target)";
  if (parts.length === 0) return "";
  const shown = parts.slice(0, 5).map((part) => {
    const kind = part.slice(0, part.indexOf(":"));
    const detail = live.details?.[part];
    return detail ? `${kind} ${JSON.stringify(detail.name)} reads differently` : `a ${kind} is missing`;
  });
  const more = parts.length > shown.length ? `, and ${parts.length - shown.length} more` : "";
  return ` (${shown.join(", ")}${more})`;
}

/**
 * A rollback's install was waited for already, so its objects read as the snapshot at once or never
 * (a snapshot file that does not hold what its record says): the check stops well before an hour.
 */
export const ROLLBACK_VERIFY_MS = 300_000;

/**
 * After a rollback's install: every part of the snapshot's objects reads as it did when the
 * snapshot was taken. Parts only on the target (what the promotion added) don't count: an install
 * can't remove them, and the rollback's plan named them.
 */
const rollbackVerify: OpHandler = async (context) => {
  const { release: id } = inputOf(context, "package.rollback-verify");
  const release = readRelease(context.stateDir, context.step.environment, id);
  if (!release?.snapshot)
    throw new ApplyError(
      "EGP_STEP_INPUT_MISSING",
      `${context.step.id}: ${release ? installName(release) : `install ${id}`} has no snapshot`,
    );
  const objects = release.snapshot.objects;
  await verifyUntilSame(
    context,
    "the objects to read as the snapshot holds them",
    async () => {
      const live = await readPackageParts(
        context.client,
        objects.map((o) => ({ guid: o.guid, type: "Application" as const })),
      );
      return objects.flatMap((o) =>
        Object.entries(o.parts)
          .filter(([key, fingerprint]) => live[o.guid]?.parts[key]?.fingerprint !== fingerprint)
          .map(([key]) => `${o.name}: ${live[o.guid]?.parts[key]?.label ?? key}`),
      );
    },
    (differing) => `after the rollback, these parts still differ from the snapshot: ${differing.join(", ")}`,
    ROLLBACK_VERIFY_MS,
  );
  // What the install created has no snapshot to go back to, and no call removes it.
  const created = release.created.map((o) => `${o.type} ${JSON.stringify(o.name)}`);
  return {
    verified: objects.map((o) => o.name),
    verdict: created.length > 0 ? `converged; created and not removable: ${created.join(", ")}` : "converged",
    passes: 1,
  };
};

export const packageOpsOutlivingPlan = [
  "package.create",
  "package.generate",
  "package.download",
  "package.fetch",
  "package.snapshot",
  "package.snapshot-generate",
  "package.snapshot-download",
  "package.upload",
] as const;

export const packageOps = {
  "package.create": create,
  "package.generate": generateAfter("create"),
  "package.download": download,
  "package.fetch": fetch,
  "package.snapshot": snapshot,
  "package.snapshot-generate": generateAfter("snapshot"),
  "package.snapshot-download": snapshotDownload,
  "package.upload": upload,
  "package.install": install,
  "package.verify": verify,
  "package.rollback-verify": rollbackVerify,
} as const;

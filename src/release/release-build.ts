import { rmSync } from "node:fs";
import { mkdir, open } from "node:fs/promises";
import { dirname, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { parse, stringify } from "yaml";
import { artifactPath, artifactsDir, inspectPackage, store as keep } from "../apply/artifacts.ts";
import { ApplyError } from "../apply/errors.ts";
import type { PlatformClient } from "../client/client.ts";
import { notOffered, PlatformError } from "../client/errors.ts";
import { retrying, STEP_RETRY_POLICY } from "../client/retry.ts";
import {
  type DesiredPackage,
  type DesiredState,
  parseReleaseFile,
  type ReleaseFile,
} from "../manifest/index.ts";
import { resolveObjectGuid } from "../plan/kinds/package.ts";
import { type LivePackageObject, type PartName, readPackageObjects } from "../state/index.ts";
import { distrust, type ReleaseStore, releaseKey, StoreError, trustOf } from "../store/index.ts";
import { CreateJournal } from "./create-journal.ts";

/*
 * `egp release create`: the packages of the Package documents, built once on the source, kept in
 * the release store by sha256, and described in `releases/<name>.yaml` with the fingerprint of
 * every part as the source's metadata reads: the file to commit and review. The store's record
 * `releases/<name>` is created once, so a name is never reused, on any machine.
 */

export interface BuildReleaseOptions {
  /** The repository: `releases/<name>.yaml` is written there. */
  dir: string;
  name: string;
  /** The source environment, loaded with its Package documents (narrowed by --target/--manifests). */
  desired: DesiredState;
  client: PlatformClient;
  store: ReleaseStore;
  stateDir: string;
  now?: () => Date;
  say?: (line: string) => void;
  sleep?: (ms: number) => Promise<void>;
}

export const releaseFileOf = (dir: string, name: string) => join(dir, "releases", `${name}.yaml`);

function exists(name: string, where: string): StoreError {
  return new StoreError(
    "EGP_STORE_EXISTS",
    `release ${name} already exists (${where}): a release name is never reused; pick another`,
  );
}

function notReady(error: unknown): boolean {
  return (
    error instanceof PlatformError &&
    (error.status === 409 || error.validationMessages.some((m) => m.MessageKey === "PackageNotReady"))
  );
}

/** Downloads a generated package into the artifact cache, waiting for its job; returns its sha256. */
async function downloadWhenReady(options: BuildReleaseOptions, packageId: number): Promise<string> {
  const { client, stateDir, desired } = options;
  const partial = join(artifactsDir(stateDir), `release-${options.name}-${packageId}.zip`);
  const sleep = options.sleep ?? ((ms: number) => delay(ms));
  const deadline = Date.now() + desired.environment.waits.jobMs;
  for (let pause = 250; ; pause = Math.min(pause * 2, 5_000)) {
    try {
      await client.packages.download(packageId, partial);
      return keep(stateDir, partial);
    } catch (error) {
      if (!notReady(error) || Date.now() > deadline) throw error;
    }
    await sleep(pause);
  }
}

/** Each part's name and parent, as the source's details give them: a release's plan names its parts. */
function partNames(object: LivePackageObject): Record<string, PartName> {
  const names: Record<string, PartName> = {};
  for (const [key, detail] of Object.entries(object.details ?? {}))
    names[key] = { name: detail.name, ...(detail.parent !== undefined ? { parent: detail.parent } : {}) };
  return names;
}

/** The name a release's package has on its source: the release's name in it, so one left behind is known. */
export const builtPackageName = (pkg: string, release: string) => `${pkg} (release ${release})`;

/**
 * The package to generate: the one a previous run of this release created (its journal), when the
 * source still has it under its name, else a new one whose id is journaled before anything else.
 */
async function packageToBuild(
  options: BuildReleaseOptions,
  pkg: DesiredPackage,
  journal: CreateJournal,
  packageObjects: Parameters<PlatformClient["packages"]["create"]>[0]["PackageObjects"],
): Promise<number> {
  const name = builtPackageName(pkg.name, options.name);
  const previous = journal.idOf(pkg.name);
  if (previous !== undefined) {
    const found = await options.client.packages.get(previous).catch((error: unknown) => {
      if (error instanceof PlatformError && (error.status === 404 || error.status === 400)) return undefined;
      if (notOffered(error)) return undefined;
      throw error;
    });
    if (found?.Name === name) {
      options.say?.(
        `Reusing package ${previous} ("${name}"), which an earlier run created on ${options.desired.environment.name}.`,
      );
      return previous;
    }
  }
  const packageId = await options.client.packages.create({
    Name: name,
    Description: [pkg.description, `[egp release ${options.name}]`].filter(Boolean).join(" "),
    PreparedBy: pkg.preparedBy ?? "egp",
    PackageObjects: packageObjects,
  });
  journal.record(pkg.name, packageId);
  return packageId;
}

/**
 * Starts the generate job, tried again as a step is when it fails for a passing reason (a 429, a
 * 5xx, a lost connection); one already running is waited for by the download.
 */
async function generatePatiently(options: BuildReleaseOptions, packageId: number): Promise<void> {
  await retrying(
    () =>
      options.client.packages.generate(packageId).catch((error: unknown) => {
        if (!notReady(error)) throw error;
      }),
    {
      policy: STEP_RETRY_POLICY,
      onRetry: (error, attempt) =>
        options.say?.(
          `Generating package ${packageId} failed (${(error as Error).message.split("\n")[0]}); trying again (try ${attempt + 1} of ${STEP_RETRY_POLICY.retries + 1}).`,
        ),
      ...(options.sleep ? { sleep: options.sleep } : {}),
    },
  );
}

async function buildPackage(
  options: BuildReleaseOptions,
  pkg: DesiredPackage,
  source: Awaited<ReturnType<typeof readPackageObjects>>,
  journal: CreateJournal,
): Promise<ReleaseFile["packages"][number]> {
  const env = options.desired.environment.name;
  const objects = pkg.objects.map((object) => {
    const guid = object.by === "guid" ? object.guid.toLowerCase() : resolveObjectGuid(object, source);
    const live = guid ? source.objects[guid] : undefined;
    const what = object.by === "name" ? `application "${object.name}"` : `${object.type} ${object.guid}`;
    if (!guid || (!live && object.type !== "GlobalReport"))
      throw new ApplyError(
        "EGP_TARGET_GONE",
        `${pkg.source.file}:${object.source.line}:${object.source.column} package "${pkg.name}": ${what} does not exist on ${env}`,
      );
    return {
      guid,
      type: object.type,
      name: live?.name ?? `Global report ${guid}`,
      ...(live
        ? {
            fingerprint: live.fingerprint,
            parts: live.partFingerprints,
            counts: live.parts,
            names: partNames(live),
          }
        : {}),
      installMethod: object.install.InstallMethod,
      installOption: object.install.InstallOption,
      translationOption: object.install.TranslationOption,
    };
  });
  options.say?.(`Building package "${pkg.name}" on ${env}…`);
  const packageId = await packageToBuild(
    options,
    pkg,
    journal,
    objects.map((o) => ({ Guid: o.guid, Type: o.type })),
  );
  await generatePatiently(options, packageId);
  const sha256 = await downloadWhenReady(options, packageId);
  const file = artifactPath(options.stateDir, sha256);
  // A file that fails the checks of any zip is not kept: no release, and no file left behind. What
  // it installs is checked on each target's metadata, as a promotion's is (docs/apply.md).
  await inspectPackage(file).catch((error: unknown) => {
    rmSync(file, { force: true });
    throw error;
  });
  const stored = await options.store.putFile(file);
  options.say?.(`Stored "${pkg.name}": sha256 ${stored.digest}, ${stored.size} bytes.`);
  return {
    name: pkg.name,
    sha256: stored.digest,
    size: stored.size,
    inactivateUnusedFields: pkg.inactivateUnusedFields,
    prefixInactivatedFields: pkg.prefixInactivatedFields,
    snapshot: pkg.snapshot,
    objects,
  };
}

/**
 * `release create --adopt NAME`: the store's record of a release whose create could not be sure it
 * won, read back and written to `releases/NAME.yaml`. Only a record signed by a trusted key, whose
 * file lists the record's packages, is adopted.
 */
export async function adoptRelease(
  dir: string,
  name: string,
  store: ReleaseStore,
): Promise<{ file: string; release: ReleaseFile }> {
  const path = releaseFileOf(dir, name);
  const record = await store.getRecord(releaseKey(name));
  if (record === undefined)
    throw new StoreError(
      "EGP_STORE_NOT_FOUND",
      `release create --adopt: the store ${store.location} has no release ${name}; create it`,
    );
  const trust = trustOf(store, releaseKey(name), record);
  if (!trust.trusted)
    throw new StoreError(
      "EGP_RECORD_UNTRUSTED",
      `release create --adopt: release ${name} in the store ${store.location} is not used: ${distrust(trust)}`,
    );
  const { file: text, packages } = record as { file?: unknown; packages?: Array<{ sha256?: unknown }> };
  if (typeof text !== "string")
    throw new StoreError(
      "EGP_STORE_NOT_FOUND",
      `release create --adopt: release ${name} in the store ${store.location} keeps no release file (an earlier egp wrote it); the name stays taken: pick another`,
    );
  const parsed = parseReleaseFile(`releases/${name}.yaml`, text, name);
  const stored = new Set((packages ?? []).map((p) => p.sha256));
  if (parsed.packages.length !== stored.size || parsed.packages.some((p) => !stored.has(p.sha256)))
    throw new StoreError(
      "EGP_RECORD_UNTRUSTED",
      `release create --adopt: release ${name} in the store ${store.location} keeps a file whose packages are not its own`,
    );
  await writeOnce(path, text, name);
  return { file: `releases/${name}.yaml`, release: parse(text) as ReleaseFile };
}

/** Writes the file once: an existing file (a name in use) is never overwritten. */
async function writeOnce(path: string, text: string, name: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const handle = await open(path, "wx").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "EEXIST") throw exists(name, `releases/${name}.yaml`);
    throw error;
  });
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export async function buildRelease(
  options: BuildReleaseOptions,
): Promise<{ file: string; release: ReleaseFile }> {
  const { name, desired, store } = options;
  const path = releaseFileOf(options.dir, name);
  const taken = await open(path, "r").then(
    async (handle) => {
      await handle.close();
      return true;
    },
    () => false,
  );
  if (taken) throw exists(name, `releases/${name}.yaml`);
  if ((await store.getRecord(releaseKey(name))) !== undefined)
    throw exists(name, `in the store ${store.location}`);
  if (desired.packages.length === 0)
    throw new ApplyError(
      "EGP_APPLY_REFUSED",
      `no Package documents for ${desired.environment.name}: a release holds the packages they name`,
    );
  const source = await readPackageObjects(
    options.client,
    (names) =>
      desired.packages.flatMap((pkg) =>
        pkg.objects.flatMap((object) => {
          if (object.by === "guid")
            return object.type === "GlobalReport" ? [] : [{ guid: object.guid, type: object.type }];
          const guid = Object.hasOwn(names, object.name.toLowerCase())
            ? names[object.name.toLowerCase()]
            : undefined;
          return guid ? [{ guid, type: object.type }] : [];
        }),
      ),
    // Every part's name goes into the release file, so the objects are described once read.
    { keepDetails: () => true },
  );
  const packages: ReleaseFile["packages"] = [];
  const journal = new CreateJournal(options.stateDir, name);
  for (const pkg of desired.packages) packages.push(await buildPackage(options, pkg, source, journal));
  const { Version: platformVersion } = await options.client.metadata.version();
  const release: ReleaseFile = {
    formatVersion: 1,
    name,
    createdAt: (options.now?.() ?? new Date()).toISOString(),
    from: desired.environment.name,
    platformVersion,
    packages,
  };
  const header = [
    `# Release ${name}: built on ${release.from} by egp release create. Commit this file: its sha256s`,
    `# are what every environment that runs \`release: ${name}\` installs, from the release store.`,
    "",
  ].join("\n");
  const text = header + stringify(release, { lineWidth: 0 });
  // The store's record is created once: of two machines creating the same name, one is refused. It
  // keeps the file's text, so that a create that could not be sure it won can be adopted.
  await store
    .putRecord(
      releaseKey(name),
      {
        name,
        createdAt: release.createdAt,
        from: release.from,
        packages: packages.map((p) => ({ name: p.name, sha256: p.sha256, size: p.size })),
        file: text,
      },
      { createOnly: true, blobs: packages.map((p) => p.sha256) },
    )
    .catch((error: unknown) => {
      if (error instanceof StoreError && error.code === "EGP_STORE_UNAVAILABLE")
        throw new StoreError(
          error.code,
          `${error.message}; once no other run is creating ${name}, 'egp release create --adopt ${name}' writes releases/${name}.yaml from the record that stands`,
        );
      throw error;
    });
  await writeOnce(path, text, name);
  journal.close();
  return { file: `releases/${name}.yaml`, release };
}

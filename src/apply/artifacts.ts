import { createHash } from "node:crypto";
import { createReadStream, existsSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import type { Entry, ZipFile } from "yauzl";
import { EgpError } from "../errors/index.ts";
import { privateDir } from "../io/private-dir.ts";
import { ZipSafety } from "../io/zip-safety.ts";

// Loaded when a package is inspected: plans and drift checks never open a zip.
const require = createRequire(import.meta.url);
const yauzl = (): typeof import("yauzl") => require("yauzl") as typeof import("yauzl");

/*
 * Downloaded packages live in a content-addressed cache, `.egp/artifacts/<sha256>.zip`, so that a
 * resumed apply reuses the file it already has. A package file is opaque: the interface
 * description says nothing of what is inside, and each instance writes its own layout. Before a
 * package is installed anywhere it is inspected for what holds of any zip (a promotion uploads it
 * while it downloads, and installs only once the complete file passed): no entry that could
 * escape a folder, no link, nothing that expands past the limits. What the install did is verified
 * on the target's metadata afterwards, whatever the layout: no entry is opened by name, so a file
 * from egp's own emulator is judged as any other (DESIGN §3).
 */

export interface ArtifactLimits {
  maxEntries: number;
  maxExpandedBytes: number;
}

export const DEFAULT_ARTIFACT_LIMITS: ArtifactLimits = {
  maxEntries: 10_000,
  maxExpandedBytes: 2 * 1024 ** 3,
};

export class ArtifactError extends EgpError {
  constructor(file: string, reason: string) {
    super("EGP_ARTIFACT_REJECTED", `package ${file} rejected: ${reason}`);
    this.name = "ArtifactError";
  }
}

export function artifactsDir(stateDir: string): string {
  const dir = join(stateDir, "artifacts");
  privateDir(stateDir, dir);
  return dir;
}

export function artifactPath(stateDir: string, sha256: string): string {
  // A digest from a journal or a release record is data: it never becomes another path.
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new ArtifactError(sha256, "not a sha256 digest");
  return join(artifactsDir(stateDir), `${sha256}.zip`);
}

export async function sha256Of(file: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(file), hash);
  return hash.digest("hex");
}

/** The kept file of `sha256`, once its bytes are checked to be the ones that digest names. */
export async function verifiedArtifact(stateDir: string, sha256: string): Promise<string> {
  const file = artifactPath(stateDir, sha256);
  const actual = await sha256Of(file).catch((error: NodeJS.ErrnoException) => {
    throw new ArtifactError(file, error.code === "ENOENT" ? "the file is gone" : error.message);
  });
  if (actual !== sha256)
    throw new ArtifactError(file, `its content changed since it was kept (its sha256 is now ${actual})`);
  return file;
}

/**
 * Moves a finished download into the cache under its digest; returns the digest. `sha256`: the
 * digest computed as the file was downloaded, which spares reading the file again.
 */
export async function store(stateDir: string, downloaded: string, sha256?: string): Promise<string> {
  const digest = sha256 ?? (await sha256Of(downloaded));
  const target = artifactPath(stateDir, digest);
  if (existsSync(target)) rmSync(downloaded, { force: true });
  else renameSync(downloaded, target);
  return digest;
}

function open(file: string): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl().open(
      file,
      { lazyEntries: true, validateEntrySizes: true, strictFileNames: false },
      (error, zip) => {
        if (error || !zip) reject(error ?? new Error("no zip"));
        else resolve(zip);
      },
    );
  });
}

/**
 * Inspects a package file for what holds of any zip, without opening an entry: its entries are
 * checked by their names and sizes only.
 */
export async function inspectPackage(
  file: string,
  limits: ArtifactLimits = DEFAULT_ARTIFACT_LIMITS,
): Promise<void> {
  const zip = await open(file).catch((error: Error) => {
    throw new ArtifactError(file, `not a zip file (${error.message})`);
  });
  try {
    const safety = new ZipSafety({ entries: limits.maxEntries, expandedBytes: limits.maxExpandedBytes });
    await new Promise<void>((resolve, reject) => {
      zip.on("error", reject);
      zip.on("end", resolve);
      zip.on("entry", (entry: Entry) => {
        const problem = safety.check(entry);
        if (problem) return reject(new ArtifactError(file, `${problem.reason}: ${entry.fileName}`));
        zip.readEntry();
      });
      zip.readEntry();
    });
  } catch (error) {
    if (error instanceof ArtifactError) throw error;
    throw new ArtifactError(file, (error as Error).message);
  } finally {
    zip.close();
  }
}

import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import { ZipFile } from "yazl";
import type { PackageManifest, PackageObjectFile } from "./file-format.ts";

/**
 * Where a package's manifest, object files and assets sit in its zip. The interface description
 * says nothing of a package file's contents, and each kind of instance writes its own: the
 * `foreign` profile writes another layout, so that a client that reads the default one is caught.
 * The emulator reads both.
 */
export interface PackageLayout {
  name: "default" | "foreign";
  manifest: string;
  objectFile(guid: string): string;
  isObject(entry: string): boolean;
  isAsset(entry: string): boolean;
}

export const DEFAULT_LAYOUT: PackageLayout = {
  name: "default",
  manifest: "manifest.json",
  objectFile: (guid) => `objects/${guid.toLowerCase()}.json`,
  isObject: (entry) => /^objects\/[^/]+\.json$/.test(entry),
  isAsset: (entry) => /^assets\/.+/.test(entry),
};

export const FOREIGN_LAYOUT: PackageLayout = {
  name: "foreign",
  manifest: "Package/Definition.dat",
  objectFile: (guid) => `Package/Items/${guid.toUpperCase()}.dat`,
  isObject: (entry) => /^Package\/Items\/[^/]+\.dat$/.test(entry),
  isAsset: (entry) => /^Package\/Files\/.+/.test(entry),
};

export const LAYOUTS: readonly PackageLayout[] = [DEFAULT_LAYOUT, FOREIGN_LAYOUT];

export function layoutOf(profile: "default" | "foreign"): PackageLayout {
  return profile === "foreign" ? FOREIGN_LAYOUT : DEFAULT_LAYOUT;
}

/**
 * Writes a package zip with yazl, streaming to `<dest>.tmp` and renaming it into place, so that a
 * download never sees half a file.
 */
export async function writePackageZip(
  dest: string,
  manifest: PackageManifest,
  objects: PackageObjectFile[],
  mtime: Date,
  layout: PackageLayout = DEFAULT_LAYOUT,
): Promise<void> {
  const zip = new ZipFile();
  const temp = `${dest}.tmp`;
  const written = pipeline(zip.outputStream, createWriteStream(temp));
  const json = (value: unknown) => Buffer.from(`${JSON.stringify(value, null, 2)}\n`, "utf8");
  zip.addBuffer(json(manifest), layout.manifest, { mtime });
  for (const object of objects) {
    const guid = object.Type === "GlobalReport" ? object.Report.Guid : object.Module.Guid;
    zip.addBuffer(json(object), layout.objectFile(guid), { mtime });
  }
  zip.end();
  try {
    await written;
    await rename(temp, dest);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

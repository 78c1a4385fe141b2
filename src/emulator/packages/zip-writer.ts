import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import { ZipFile } from "yazl";
import type { PackageManifest, PackageObjectFile } from "../../wire/index.ts";

export const MANIFEST_FILE = "manifest.json";

export function objectFileName(guid: string): string {
  return `objects/${guid.toLowerCase()}.json`;
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
): Promise<void> {
  const zip = new ZipFile();
  const temp = `${dest}.tmp`;
  const written = pipeline(zip.outputStream, createWriteStream(temp));
  const json = (value: unknown) => Buffer.from(`${JSON.stringify(value, null, 2)}\n`, "utf8");
  zip.addBuffer(json(manifest), MANIFEST_FILE, { mtime });
  for (const object of objects) {
    const guid = object.Type === "GlobalReport" ? object.Report.Guid : object.Module.Guid;
    zip.addBuffer(json(object), objectFileName(guid), { mtime });
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

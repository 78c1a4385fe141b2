import yauzl, { type Entry, type ZipFile } from "yauzl";
import type { z } from "zod";
import {
  PackageManifest as ManifestSchema,
  PackageObjectFile as ObjectFileSchema,
  type PackageManifest,
  type PackageObjectFile,
} from "../../wire/index.ts";
import { HttpFailure, message } from "../failure.ts";
import { MANIFEST_FILE, objectFileName } from "./zip-writer.ts";

/*
 * Reads a package zip without trusting it. Rejected, each with its own message key:
 * - names that are absolute, carry a drive letter, a backslash, a NUL or a `..` segment;
 * - symbolic links and encrypted entries;
 * - more entries than `limits.entries`, or duplicate names;
 * - entries whose expanded bytes, counted while streaming, pass `limits.expandedBytes`;
 * - entries other than `manifest.json`, `objects/*.json` and `assets/**`;
 * - a missing or invalid manifest, or an object file it lists that is missing, invalid or does not
 *   match its manifest entry.
 * Entries are read one at a time (lazy entries) and only the JSON ones are held in memory.
 */

export interface ZipLimits {
  entries: number;
  expandedBytes: number;
}

export interface PackageContents {
  manifest: PackageManifest;
  objects: PackageObjectFile[];
}

/** Largest manifest or object file; a real metadata tree is far smaller. */
const JSON_ENTRY_LIMIT = 64 * 1024 * 1024;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

function rejected(key: string, description: string, erroredValue?: unknown): HttpFailure {
  return new HttpFailure(400, message(key, description, { erroredValue }));
}

/** Our own name check; yauzl checks too, and its errors are mapped to the same key. */
function unsafeName(name: string): boolean {
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) return true;
  if (name.includes("\\") || name.includes("\0")) return true;
  return name.split("/").some((segment) => segment === "..");
}

type EntryKind = "manifest" | "object" | "asset";

function classify(name: string): EntryKind | undefined {
  if (name === MANIFEST_FILE) return "manifest";
  if (/^objects\/[^/]+\.json$/.test(name)) return "object";
  if (/^assets\/.+/.test(name)) return "asset";
  return undefined;
}

function fromYauzl(error: Error): HttpFailure {
  if (error instanceof HttpFailure) return error;
  const text = error.message;
  if (/invalid relative path|absolute path|invalid characters in fileName/i.test(text)) {
    return rejected("UnsafeEntryName", `The package holds an unsafe entry name (${text}).`);
  }
  return rejected("InvalidZip", `The package is not a readable zip file: ${text}.`);
}

class Budget {
  private expanded = 0;
  private readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  add(bytes: number, name: string): void {
    this.expanded += bytes;
    if (this.expanded > this.limit) {
      throw rejected(
        "ZipExpandsTooFar",
        `The package expands past the limit of ${this.limit} bytes (at entry ${name}).`,
        name,
      );
    }
  }
}

/** Streams one entry, counting its bytes against the budget; keeps them only when asked to. */
async function drain(zip: ZipFile, entry: Entry, budget: Budget, keep: boolean): Promise<Buffer> {
  const stream = await zip.openReadStreamPromise(entry);
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    budget.add(chunk.length, entry.fileName);
    if (keep) chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function checkEntry(entry: Entry, seen: Set<string>, limits: ZipLimits): EntryKind | "directory" {
  const name = entry.fileName;
  if (seen.size >= limits.entries) {
    throw rejected("TooManyEntries", `The package holds more than ${limits.entries} entries.`);
  }
  if (unsafeName(name))
    throw rejected("UnsafeEntryName", `The package holds an unsafe entry name: ${name}`, name);
  if (((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK) {
    throw rejected("SymlinkEntry", `The package holds a symbolic link: ${name}`, name);
  }
  if (entry.isEncrypted())
    throw rejected("EncryptedEntry", `The package holds an encrypted entry: ${name}`, name);
  const lower = name.toLowerCase();
  if (seen.has(lower)) throw rejected("DuplicateEntry", `The package holds ${name} twice.`, name);
  seen.add(lower);
  if (name.endsWith("/")) return "directory";
  const kind = classify(name);
  if (!kind) {
    throw rejected(
      "UnexpectedEntry",
      `The package holds an entry that is not manifest.json, objects/*.json or assets/**: ${name}`,
      name,
    );
  }
  if (kind !== "asset" && entry.uncompressedSize > JSON_ENTRY_LIMIT) {
    throw rejected("EntryTooLarge", `${name} is larger than ${JSON_ENTRY_LIMIT} bytes.`, name);
  }
  return kind;
}

async function readEntries(
  zip: ZipFile,
  limits: ZipLimits,
  readAssets: boolean,
): Promise<Map<string, Buffer>> {
  if (zip.entryCount > limits.entries) {
    throw rejected(
      "TooManyEntries",
      `The package holds ${zip.entryCount} entries; the limit is ${limits.entries}.`,
    );
  }
  const budget = new Budget(limits.expandedBytes);
  const seen = new Set<string>();
  const json = new Map<string, Buffer>();
  for await (const entry of zip.eachEntry()) {
    const kind = checkEntry(entry, seen, limits);
    if (kind === "directory") continue;
    // A stored asset cannot expand: yauzl has checked its size against the directory before
    // emitting it, so it is counted without reading it. A compressed one is inflated and counted,
    // unless the file was accepted earlier (`readAssets: false`).
    if (kind === "asset" && (!readAssets || entry.compressionMethod === 0)) {
      budget.add(entry.uncompressedSize, entry.fileName);
      continue;
    }
    const data = await drain(zip, entry, budget, kind !== "asset");
    if (kind !== "asset") json.set(entry.fileName, data);
  }
  return json;
}

function parseJson<T extends z.ZodType>(
  schema: T,
  data: Buffer | undefined,
  name: string,
  keys: { missing: string; invalid: string },
): z.infer<T> {
  if (!data) throw rejected(keys.missing, `The package has no ${name}.`, name);
  const key = keys.invalid;
  let value: unknown;
  try {
    value = JSON.parse(data.toString("utf8"));
  } catch (error) {
    throw rejected(key, `${name} is not valid JSON: ${(error as Error).message}`, name);
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
  throw rejected(key, `${name} does not match the package format: ${issues.slice(0, 5).join("; ")}`, name);
}

function parseContents(json: Map<string, Buffer>): PackageContents {
  const manifest = parseJson(ManifestSchema, json.get(MANIFEST_FILE), MANIFEST_FILE, {
    missing: "ManifestMissing",
    invalid: "ManifestInvalid",
  });
  const listed = new Set<string>();
  const objects = manifest.Objects.map((entry) => {
    const expected = objectFileName(entry.Guid);
    if (entry.File !== expected) {
      throw rejected(
        "ManifestInvalid",
        `manifest.json names ${entry.File} for ${entry.Guid}; expected ${expected}.`,
      );
    }
    if (listed.has(expected)) throw rejected("ManifestInvalid", `manifest.json lists ${entry.Guid} twice.`);
    listed.add(expected);
    const object = parseJson(ObjectFileSchema, json.get(expected), expected, {
      missing: "ObjectFileMissing",
      invalid: "ObjectFileInvalid",
    });
    const guid = object.Type === "GlobalReport" ? object.Report.Guid : object.Module.Guid;
    if (object.Type !== entry.Type || guid.toLowerCase() !== entry.Guid.toLowerCase()) {
      throw rejected(
        "ObjectFileInvalid",
        `${expected} does not hold the ${entry.Type} ${entry.Guid} its manifest entry names.`,
      );
    }
    return object;
  });
  for (const name of json.keys()) {
    if (name !== MANIFEST_FILE && !listed.has(name)) {
      throw rejected("UnexpectedEntry", `${name} is not listed in manifest.json.`, name);
    }
  }
  return { manifest, objects };
}

/**
 * Validates a package file and returns its manifest and object trees. `readAssets: false` skips
 * streaming through assets (for a file that was validated whole when it was accepted).
 */
export async function readPackageFile(
  file: string,
  limits: ZipLimits,
  options: { readAssets: boolean } = { readAssets: true },
): Promise<PackageContents> {
  let zip: ZipFile;
  try {
    zip = await yauzl.openPromise(file, {
      strictFileNames: true,
      validateEntrySizes: true,
      decodeStrings: true,
    });
  } catch (error) {
    throw fromYauzl(error as Error);
  }
  try {
    const json = await readEntries(zip, limits, options.readAssets);
    return parseContents(json);
  } catch (error) {
    throw fromYauzl(error as Error);
  } finally {
    zip.close();
  }
}

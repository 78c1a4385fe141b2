import yauzl, { type Entry, type ZipFile } from "yauzl";
import type { z } from "zod";
import { type ZipEntryProblem, ZipSafety } from "../../io/zip-safety.ts";
import { HttpFailure, message } from "../failure.ts";
import {
  PackageManifest as ManifestSchema,
  PackageObjectFile as ObjectFileSchema,
  type PackageManifest,
  type PackageObjectFile,
} from "./file-format.ts";
import { DEFAULT_LAYOUT, LAYOUTS, type PackageLayout } from "./zip-writer.ts";

/*
 * Reads a package zip without trusting it, in an order that inflates nothing it will refuse:
 * 1. The central directory alone (no entry is inflated): names that are absolute, carry a drive
 *    letter, a backslash, a NUL or a `..` segment; symbolic links and encrypted entries; more
 *    entries than `limits.entries`, or duplicate names; entries other than one layout's manifest,
 *    object files and assets (`manifest.json`, `objects/*.json`, `assets/**` in the default
 *    layout; zip-writer.ts); declared sizes that add up past `limits.expandedBytes`, or a JSON
 *    entry declared larger than `limits.jsonBytes`.
 * 2. The manifest, then the object files checked against it: an object file it does not list is
 *    refused before any object file is inflated, as is a listed one that is missing, and the JSON
 *    entries' declared sizes must add up to at most `limits.jsonBytes`.
 * 3. Each listed object file, inflated into a buffer of its declared size (yauzl's
 *    `validateEntrySizes` fails an entry that inflates past it) while its objects and arrays are
 *    counted against `limits.jsonNodes`: JSON.parse turns `{}` into some 60 bytes of heap, so
 *    bytes alone do not bound the memory a package costs.
 * 4. Assets, streamed and counted, never held.
 * JSON is held for one package at a time in this process, so that concurrent uploads queue instead
 * of adding up.
 */

export interface ZipLimits {
  entries: number;
  expandedBytes: number;
  /** Largest total of manifest.json and the object files: they are held in memory and parsed. */
  jsonBytes: number;
  /** Most JSON objects and arrays in manifest.json and the object files together. */
  jsonNodes: number;
}

export interface PackageContents {
  manifest: PackageManifest;
  objects: PackageObjectFile[];
}

function rejected(key: string, description: string, erroredValue?: unknown): HttpFailure {
  return new HttpFailure(400, message(key, description, { erroredValue }));
}

type EntryKind = "manifest" | "object" | "asset";

function classify(name: string): { kind: EntryKind; layout: PackageLayout } | undefined {
  for (const layout of LAYOUTS) {
    if (name === layout.manifest) return { kind: "manifest", layout };
    if (layout.isObject(name)) return { kind: "object", layout };
    if (layout.isAsset(name)) return { kind: "asset", layout };
  }
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

function expandsTooFar(limit: number, name: string): HttpFailure {
  return rejected(
    "ZipExpandsTooFar",
    `The package expands past the limit of ${limit} bytes (at entry ${name}).`,
    name,
  );
}

/** Counts expanded bytes while streaming: a second line behind the declared sizes. */
class Budget {
  private expanded = 0;
  private readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  add(bytes: number, name: string): void {
    this.expanded += bytes;
    if (this.expanded > this.limit) throw expandsTooFar(this.limit, name);
  }
}

/**
 * Objects and arrays of the package's JSON so far, counted chunk by chunk as each file inflates,
 * so that a file past the limit is dropped before it is whole (and long before it is parsed).
 */
class NodeBudget {
  private used = 0;
  private readonly limit: number;
  private inString = false;
  private escaped = false;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Starts a new file: string state does not carry over between files. */
  reset(): void {
    this.inString = false;
    this.escaped = false;
  }

  /** Counts `{` and `[` outside strings. */
  count(chunk: Buffer, name: string): void {
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i];
      if (this.escaped) this.escaped = false;
      else if (this.inString) {
        if (c === 0x5c) this.escaped = true;
        else if (c === 0x22) this.inString = false;
      } else if (c === 0x22) this.inString = true;
      else if (c === 0x7b || c === 0x5b) {
        this.used += 1;
        if (this.used > this.limit) {
          throw rejected(
            "JsonTooComplex",
            `The package's JSON holds more than ${this.limit} objects and arrays (at ${name}).`,
            name,
          );
        }
      }
    }
  }
}

let gate: Promise<void> = Promise.resolve();

/** Runs `work` when no other package's JSON is being read in this process. */
async function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  const previous = gate;
  let release = () => {};
  gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  await previous;
  try {
    return await work();
  } finally {
    release();
  }
}

/** Streams one entry, counting its bytes against the budget, and drops them. */
async function drain(zip: ZipFile, entry: Entry, budget: Budget): Promise<void> {
  const stream = await zip.openReadStreamPromise(entry);
  for await (const chunk of stream as AsyncIterable<Buffer>) budget.add(chunk.length, entry.fileName);
}

/**
 * Inflates a JSON entry into one buffer of its declared size (checked against the limits already),
 * counting its objects and arrays on the way.
 */
async function inflate(zip: ZipFile, entry: Entry, budget: Budget, nodes: NodeBudget): Promise<Buffer> {
  const data = Buffer.allocUnsafe(entry.uncompressedSize);
  let length = 0;
  nodes.reset();
  const stream = await zip.openReadStreamPromise(entry);
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      budget.add(chunk.length, entry.fileName);
      if (length + chunk.length > data.length) {
        throw rejected("InvalidZip", `${entry.fileName} expands past its declared size.`, entry.fileName);
      }
      nodes.count(chunk, entry.fileName);
      chunk.copy(data, length);
      length += chunk.length;
    }
  } finally {
    stream.destroy();
  }
  return data.subarray(0, length);
}

/** The rules of any zip (src/io/zip-safety.ts), as this interface's answers name them. */
function unsafe(problem: ZipEntryProblem, name: string, limits: ZipLimits): HttpFailure {
  switch (problem.rule) {
    case "TooManyEntries":
      return rejected("TooManyEntries", `The package holds more than ${limits.entries} entries.`);
    case "UnsafeEntryName":
      return rejected("UnsafeEntryName", `The package holds an unsafe entry name: ${name}`, name);
    case "SymlinkEntry":
      return rejected("SymlinkEntry", `The package holds a symbolic link: ${name}`, name);
    case "ExpandsTooFar":
      return expandsTooFar(limits.expandedBytes, name);
  }
}

function checkEntry(
  entry: Entry,
  seen: Set<string>,
  limits: ZipLimits,
  safety: ZipSafety,
): { kind: EntryKind; layout: PackageLayout } | "directory" {
  const name = entry.fileName;
  const problem = safety.check(entry);
  if (problem) throw unsafe(problem, name, limits);
  if (entry.isEncrypted())
    throw rejected("EncryptedEntry", `The package holds an encrypted entry: ${name}`, name);
  const lower = name.toLowerCase();
  if (seen.has(lower)) throw rejected("DuplicateEntry", `The package holds ${name} twice.`, name);
  seen.add(lower);
  if (name.endsWith("/")) return "directory";
  const classified = classify(name);
  if (!classified) {
    throw rejected(
      "UnexpectedEntry",
      `The package holds an entry that is not a manifest, an object file or an asset: ${name}`,
      name,
    );
  }
  if (classified.kind !== "asset" && entry.uncompressedSize > limits.jsonBytes) {
    throw rejected("EntryTooLarge", `${name} is larger than ${limits.jsonBytes} bytes.`, name);
  }
  return classified;
}

interface Listing {
  /** The layout of every entry: one zip never mixes two. */
  layout: PackageLayout | undefined;
  manifest: Entry | undefined;
  objects: Map<string, Entry>;
  assets: Entry[];
}

/** Walks the central directory: every check that needs no entry's data. */
async function listEntries(zip: ZipFile, limits: ZipLimits): Promise<Listing> {
  if (zip.entryCount > limits.entries) {
    throw rejected(
      "TooManyEntries",
      `The package holds ${zip.entryCount} entries; the limit is ${limits.entries}.`,
    );
  }
  const listing: Listing = { layout: undefined, manifest: undefined, objects: new Map(), assets: [] };
  const seen = new Set<string>();
  const safety = new ZipSafety({ entries: limits.entries, expandedBytes: limits.expandedBytes });
  for await (const entry of zip.eachEntry()) {
    const classified = checkEntry(entry, seen, limits, safety);
    if (classified === "directory") continue;
    const { kind, layout } = classified;
    if (listing.layout && listing.layout !== layout) {
      throw rejected(
        "UnexpectedEntry",
        `The package mixes two layouts: ${entry.fileName} does not belong beside ${listing.layout.manifest}.`,
        entry.fileName,
      );
    }
    listing.layout = layout;
    if (kind === "manifest") listing.manifest = entry;
    else if (kind === "object") listing.objects.set(entry.fileName, entry);
    else listing.assets.push(entry);
  }
  return listing;
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

/** The object file each manifest entry names, checked for its name and for duplicates. */
function listedFiles(
  manifest: PackageManifest,
  layout: PackageLayout,
): Map<string, PackageManifest["Objects"][number]> {
  const listed = new Map<string, PackageManifest["Objects"][number]>();
  for (const entry of manifest.Objects) {
    const expected = layout.objectFile(entry.Guid);
    if (entry.File !== expected) {
      throw rejected(
        "ManifestInvalid",
        `${layout.manifest} names ${entry.File} for ${entry.Guid}; expected ${expected}.`,
      );
    }
    if (listed.has(expected))
      throw rejected("ManifestInvalid", `${layout.manifest} lists ${entry.Guid} twice.`);
    listed.set(expected, entry);
  }
  return listed;
}

/** Object files against the manifest, by name and declared size, before any is inflated. */
function checkAgainstManifest(
  listing: Listing,
  listed: Map<string, PackageManifest["Objects"][number]>,
  limits: ZipLimits,
  layout: PackageLayout,
): void {
  for (const name of listing.objects.keys()) {
    if (!listed.has(name))
      throw rejected("UnexpectedEntry", `${name} is not listed in ${layout.manifest}.`, name);
  }
  let declared = listing.manifest?.uncompressedSize ?? 0;
  for (const name of listed.keys()) {
    const entry = listing.objects.get(name);
    if (!entry) throw rejected("ObjectFileMissing", `The package has no ${name}.`, name);
    declared += entry.uncompressedSize;
  }
  if (declared > limits.jsonBytes) {
    throw rejected(
      "JsonTooLarge",
      `${layout.manifest} and the object files expand to ${declared} bytes; the limit is ${limits.jsonBytes}.`,
    );
  }
}

async function readJsonEntry<T extends z.ZodType>(
  source: { zip: ZipFile; budget: Budget; nodes: NodeBudget },
  schema: T,
  entry: Entry,
  key: string,
): Promise<z.infer<T>> {
  const data = await inflate(source.zip, entry, source.budget, source.nodes);
  return parseJson(schema, data, entry.fileName, { missing: key, invalid: key });
}

async function readContents(
  zip: ZipFile,
  listing: Listing,
  limits: ZipLimits,
  budget: Budget,
): Promise<PackageContents> {
  const source = { zip, budget, nodes: new NodeBudget(limits.jsonNodes) };
  const { layout } = listing;
  if (!listing.manifest || !layout) {
    const expected = (layout ?? DEFAULT_LAYOUT).manifest;
    throw rejected("ManifestMissing", `The package has no ${expected}.`, expected);
  }
  const manifest = await readJsonEntry(source, ManifestSchema, listing.manifest, "ManifestInvalid");
  const listed = listedFiles(manifest, layout);
  checkAgainstManifest(listing, listed, limits, layout);
  const objects: PackageObjectFile[] = [];
  for (const [name, entry] of listed) {
    const object = await readJsonEntry(
      source,
      ObjectFileSchema,
      listing.objects.get(name) as Entry,
      "ObjectFileInvalid",
    );
    const guid = object.Type === "GlobalReport" ? object.Report.Guid : object.Module.Guid;
    if (object.Type !== entry.Type || guid.toLowerCase() !== entry.Guid.toLowerCase()) {
      throw rejected(
        "ObjectFileInvalid",
        `${name} does not hold the ${entry.Type} ${entry.Guid} its manifest entry names.`,
      );
    }
    objects.push(object);
  }
  return { manifest, objects };
}

/**
 * Streams through compressed assets, counting what they expand to. A stored asset cannot expand:
 * its declared size was counted from the directory, and yauzl fails an entry that passes it.
 */
async function checkAssets(zip: ZipFile, listing: Listing, budget: Budget): Promise<void> {
  for (const entry of listing.assets) {
    if (entry.compressionMethod === 0) budget.add(entry.uncompressedSize, entry.fileName);
    else await drain(zip, entry, budget);
  }
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
      // Entries are read after the whole directory has been walked, which would close it.
      autoClose: false,
      strictFileNames: true,
      validateEntrySizes: true,
      decodeStrings: true,
    });
  } catch (error) {
    throw fromYauzl(error as Error);
  }
  try {
    const listing = await listEntries(zip, limits);
    const budget = new Budget(limits.expandedBytes);
    const contents = await oneAtATime(() => readContents(zip, listing, limits, budget));
    if (options.readAssets) await checkAssets(zip, listing, budget);
    return contents;
  } catch (error) {
    throw fromYauzl(error as Error);
  } finally {
    zip.close();
  }
}

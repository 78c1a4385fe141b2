import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type LoadOptions,
  type LoadResult,
  ManifestCache,
  type Repository,
  type Variables,
  validateRepository,
} from "../../src/manifest/index.ts";
import { userDoc, VARIABLES } from "./builders.ts";

/* Runs of egp against a manifest cache, for the tests of its file entries and of its state entries. */

export const activeUsers = (count: number) =>
  Array.from({ length: count }, (_, i) =>
    userDoc({ userName: `user${i}`, firstName: `First ${i}`, groups: ["Everyone"], status: "active" }),
  );

/** A fresh `.egp` folder (not yet made). */
export async function stateDir(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), "egp-cache-")), ".egp");
}

export interface CacheRun {
  result: LoadResult;
  cache: ManifestCache;
}

export interface RunOptions {
  /** One environment (a plan's load); every environment by default. */
  env?: string;
  variables?: Variables;
  /** Plays another egp. */
  fingerprint?: string;
  parser?: LoadOptions["parser"];
}

/** One run of egp: a cache of its own, saved after the load. */
export function cachedLoad(repo: Repository, dir: string, options: RunOptions = {}): CacheRun {
  const { fingerprint, ...load } = options;
  const cache = new ManifestCache(dir, fingerprint ? { fingerprint } : {});
  const result = validateRepository(repo, { variables: VARIABLES, fileExists: () => true, ...load, cache });
  cache.save();
  return { result, cache };
}

/** What the same load gives without any cache: the reference every cached load must equal. */
export function uncachedLoad(repo: Repository, options: Omit<RunOptions, "fingerprint"> = {}): LoadResult {
  return validateRepository(repo, { variables: VARIABLES, fileExists: () => true, ...options });
}

/** The entries of one of the cache's folders (`manifests`, `states`). */
export function entriesIn(dir: string, folder: "manifests" | "states"): string[] {
  const path = join(dir, "cache", folder);
  return readdirSync(path).map((name) => join(path, name));
}

/** Ways an entry gets spoilt, each of which must make it a miss. */
export const SPOILT: [string, (bytes: Buffer) => Buffer][] = [
  ["truncated", (bytes) => bytes.subarray(0, Math.floor(bytes.length / 2))],
  ["of another format", (bytes) => Buffer.concat([Buffer.from("PK\u0003\u0004"), bytes])],
  ["empty", () => Buffer.alloc(0)],
  ["flipped", (bytes) => Buffer.from(bytes.map((byte, i) => (i > 40 && i % 7 === 0 ? byte ^ 0xff : byte)))],
];

/** Changes one byte of a kept value (the name `First 17` becomes `First 18`); the entries it was in. */
export function changeOneByte(files: readonly string[]): string[] {
  return files.filter((file) => {
    const bytes = readFileSync(file);
    const at = bytes.indexOf("First 17");
    if (at < 0) return false;
    bytes[at + 6] = "8".charCodeAt(0);
    writeFileSync(file, bytes);
    return true;
  });
}

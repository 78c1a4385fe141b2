// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { manifestCacheOf } from "../../src/cli/manifest-cache.ts";
import { ManifestCache, type Repository, validateRepository } from "../../src/manifest/index.ts";
import {
  lines,
  type RepositorySpec,
  realEnvironmentDoc,
  repository,
  userDoc,
  VARIABLES,
} from "./builders.ts";
import {
  activeUsers,
  cachedLoad,
  changeOneByte,
  entriesIn,
  SPOILT,
  stateDir,
  uncachedLoad as uncached,
} from "./cache-runs.ts";

const USERS = activeUsers(30);
const SPEC: RepositorySpec = {
  manifests: {
    "users.yaml": USERS,
    "more.yaml": [
      userDoc({
        userName: "jdoe",
        contacts: [{ type: "email", subType: "business", value: "jdoe@example.com" }],
      }),
    ],
  },
};

/** A run of egp for every environment. */
const load = (repo: Repository, dir: string, fingerprint?: string) =>
  cachedLoad(repo, dir, fingerprint ? { fingerprint } : {});
const cacheFiles = (dir: string) => entriesIn(dir, "manifests");

describe("manifest cache", () => {
  const saved = process.env.EGP_CACHE;
  afterEach(() => {
    if (saved === undefined) delete process.env.EGP_CACHE;
    else process.env.EGP_CACHE = saved;
  });

  it("reads a second load from the cache, and gives the same desired state", async () => {
    const dir = await stateDir();
    const repo = repository(SPEC);
    const first = load(repo, dir);
    expect(first.cache.stats).toMatchObject({ hits: 0, misses: 2, written: 2 });
    const second = load(repo, dir);
    expect(second.cache.stats).toMatchObject({ hits: 2, misses: 0, rejected: 0, written: 0, validated: 31 });
    expect(second.result.ok ? [] : lines(second.result.errors)).toEqual([]);
    expect(second.result).toEqual(uncached(repo));
  });

  it("files and folders are private", async () => {
    const dir = await stateDir();
    load(repository(SPEC), dir);
    expect(statSync(join(dir, "cache", "manifests")).mode & 0o777).toBe(0o700);
    for (const file of cacheFiles(dir)) expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("keeps positions: an error found later about a cached document points at its line and column", async () => {
    const dir = await stateDir();
    load(repository(SPEC), dir);
    // A second file names jdoe again: the duplicate is reported with the cached document's place.
    const repo = repository({ manifests: { ...SPEC.manifests, "zz.yaml": [userDoc({ userName: "jdoe" })] } });
    const { result, cache } = load(repo, dir);
    expect(cache.stats.hits).toBe(2);
    expect(result.ok).toBe(false);
    const reference = uncached(repo);
    expect(result.ok ? [] : lines(result.errors)).toEqual(reference.ok ? [] : lines(reference.errors));
    expect(reference.ok ? [] : lines(reference.errors)).toEqual([
      expect.stringMatching(/more\.yaml:\d+:\d+/),
    ]);
  });

  it("misses on any byte changed in a file, and only for that file", async () => {
    const dir = await stateDir();
    const repo = repository(SPEC);
    load(repo, dir);
    const changed: Repository = {
      ...repo,
      manifests: repo.manifests.map((file) =>
        file.path.endsWith("users.yaml")
          ? { ...file, text: file.text.replace("First 17", "First 18") }
          : file,
      ),
    };
    const { result, cache } = load(changed, dir);
    expect(cache.stats).toMatchObject({ hits: 1, misses: 1, written: 1 });
    expect(result).toEqual(uncached(changed));
    expect(result.ok && result.states[0]?.users.find((u) => u.userName === "user17")?.fields.FirstName).toBe(
      "First 18",
    );
  });

  it("misses when egp changes (another version or code), and writes the entries again", async () => {
    const dir = await stateDir();
    const repo = repository(SPEC);
    load(repo, dir);
    const other = load(repo, dir, "another egp");
    expect(other.cache.stats).toMatchObject({ hits: 0, misses: 2, written: 2 });
    expect(other.result).toEqual(uncached(repo));
    expect(load(repo, dir, "another egp").cache.stats.hits).toBe(2);
  });

  it.each(SPOILT)("ignores an entry that is %s, and writes it again", async (_name, spoil) => {
    const dir = await stateDir();
    const repo = repository(SPEC);
    load(repo, dir);
    for (const file of cacheFiles(dir)) writeFileSync(file, spoil(readFileSync(file)));
    const { result, cache } = load(repo, dir);
    expect(cache.stats.hits).toBe(0);
    expect(cache.stats.written).toBe(2);
    expect(result).toEqual(uncached(repo));
    expect(load(repo, dir).cache.stats.hits).toBe(2);
  });

  it("is sealed: one byte of a kept value changed (a name) and the entry is not used", async () => {
    const dir = await stateDir();
    const repo = repository(SPEC);
    load(repo, dir);
    const changed = changeOneByte(cacheFiles(dir));
    expect(changed).toHaveLength(1);
    const { result, cache } = load(repo, dir);
    expect(cache.stats).toMatchObject({ hits: 1, rejected: 1, written: 1 });
    expect(result).toEqual(uncached(repo));
  });

  it("never stores a substituted value: a document naming a variable keeps its reference only", async () => {
    const dir = await stateDir();
    const secret = "Zq7-never-stored-4410";
    const repo = repository({
      environments: { prod: realEnvironmentDoc() },
      manifests: {
        "users.yaml": [userDoc({ userName: "svc", initialPassword: "${EGP_SVC_PASSWORD}" }), ...USERS],
      },
    });
    const cache = new ManifestCache(dir);
    const variables = { ...VARIABLES, EGP_SVC_PASSWORD: secret };
    const result = validateRepository(repo, { variables, fileExists: () => true, cache });
    cache.save();
    // The load did use the value: it is in the desired state, and so was there to leak.
    const revealed = result.ok
      ? (result.states[0]?.sensitive ?? []).map((value) => value.value.reveal())
      : [];
    expect(revealed ?? []).toContain(secret);
    const bytes = Buffer.concat(cacheFiles(dir).map((file) => readFileSync(file)));
    expect(bytes.includes(Buffer.from("${EGP_SVC_PASSWORD}", "latin1"))).toBe(true);
    for (const value of [secret, VARIABLES.EGP_PROD_PASSWORD]) {
      expect(bytes.includes(Buffer.from(value, "latin1"))).toBe(false);
      expect(bytes.includes(Buffer.from(value, "utf16le"))).toBe(false);
    }
    // Warm, the value is substituted again, after the cache.
    const warm = new ManifestCache(dir);
    const again = validateRepository(repo, { variables, fileExists: () => true, cache: warm });
    expect(warm.stats.hits).toBe(1);
    // Every document but the one naming a variable skips validation; that one is validated again.
    expect(warm.stats.validated).toBe(USERS.length);
    expect(again).toEqual(validateRepository(repo, { variables, fileExists: () => true }));
  });

  it("refuses a cache folder that is a symbolic link, as the rest of .egp/", async () => {
    const dir = await stateDir();
    const elsewhere = await mkdtemp(join(tmpdir(), "egp-elsewhere-"));
    mkdirSync(dir);
    symlinkSync(elsewhere, join(dir, "cache"));
    const cache = new ManifestCache(dir);
    validateRepository(repository(SPEC), { variables: VARIABLES, fileExists: () => true, cache });
    expect(() => cache.save()).toThrow(/symbolic link/);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("EGP_CACHE=off turns it off for the CLI", () => {
    process.env.EGP_CACHE = "off";
    expect(manifestCacheOf("/repo")).toBeUndefined();
    delete process.env.EGP_CACHE;
    expect(manifestCacheOf("/repo")?.folder).toBe(join("/repo", ".egp", "cache", "manifests"));
  });
});

// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  ManifestCache,
  type Repository,
  type Variables,
  validateRepository,
} from "../../src/manifest/index.ts";
import {
  environmentDoc,
  lines,
  packageDoc,
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
  uncachedLoad,
} from "./cache-runs.ts";

/*
 * The cache of a whole environment's state (`.egp/cache/states/`): what one-environment loads (a
 * plan, a drift check, an apply) read instead of parsing and normalizing unchanged manifests.
 */

const SPEC: RepositorySpec = {
  environments: {
    dev: environmentDoc(),
    prod: realEnvironmentDoc({ packagesFrom: "dev" }),
  },
  manifests: {
    "users.yaml": activeUsers(20),
    // A warning of the document's own: kept with the state, and given again from it.
    "packages.yaml": packageDoc({ prefixInactivatedFields: "old_" }),
  },
};

/** One run of egp for environment prod. */
const load = (repo: Repository, dir: string, variables: Variables = VARIABLES, fingerprint?: string) =>
  cachedLoad(repo, dir, { env: "prod", variables, ...(fingerprint ? { fingerprint } : {}) });
const uncached = (repo: Repository, variables: Variables = VARIABLES) =>
  uncachedLoad(repo, { env: "prod", variables });
const stateFiles = (dir: string) => entriesIn(dir, "states");

const changeFile = (repo: Repository, path: string, from: string, to: string): Repository => {
  const change = (file: { path: string; text: string }) =>
    file.path === path ? { path: file.path, text: file.text.replace(from, to) } : file;
  return { ...repo, environments: repo.environments.map(change), manifests: repo.manifests.map(change) };
};

describe("the state cache", () => {
  it("gives a warm load the whole state, equal to a load without the cache, warnings included", async () => {
    const dir = await stateDir();
    const repo = repository(SPEC);
    const first = load(repo, dir);
    expect(first.cache.stats).toMatchObject({ states: 0, statesWritten: 1 });
    const second = load(repo, dir);
    // Nothing parsed: not even a lookup of the files' own entries.
    expect(second.cache.stats).toMatchObject({ states: 1, hits: 0, misses: 0, statesWritten: 0 });
    const reference = uncached(repo);
    expect(reference.ok ? [] : lines(reference.errors)).toEqual([]);
    expect(second.result).toEqual(reference);
    expect(lines(second.result.warnings)).toEqual([
      expect.stringMatching(
        /^warning: manifests\/packages\.yaml:\d+:\d+ .*prefixInactivatedFields: has no effect/,
      ),
    ]);
    // The connection is read now, from the environment file and its variables.
    const state = second.result.ok ? second.result.states[0] : undefined;
    expect(state?.environment.auth.password.reveal()).toBe(VARIABLES.EGP_PROD_PASSWORD);
    expect(state?.packagesFrom?.name).toBe("dev");
    expect(Object.isFrozen(state?.users[0]?.fields)).toBe(true);
  });

  it("is private: its folder 0700, its files 0600", async () => {
    const dir = await stateDir();
    load(repository(SPEC), dir);
    expect(statSync(join(dir, "cache", "states")).mode & 0o777).toBe(0o700);
    for (const file of stateFiles(dir)) expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it.each([
    ["a manifest", "manifests/users.yaml", "First 17", "First 18"],
    ["the environment's file", "environments/prod.yaml", "Production", "Production2"],
    ["its packagesFrom's file", "environments/dev.yaml", "General User", "General Users"],
  ])("misses on any byte changed in %s, and keeps the new state", async (_name, path, from, to) => {
    const dir = await stateDir();
    const repo = repository(SPEC);
    load(repo, dir);
    const changed = changeFile(repo, path, from, to);
    expect(changed).not.toEqual(repo);
    const { result, cache } = load(changed, dir);
    expect(cache.stats).toMatchObject({ states: 0, statesWritten: 1 });
    expect(result).toEqual(uncached(changed));
    expect(load(changed, dir).cache.stats.states).toBe(1);
  });

  it("misses when another environment is added: its name is one a document may scope to", async () => {
    const dir = await stateDir();
    const repo = repository(SPEC);
    load(repo, dir);
    const more = repository({
      ...SPEC,
      environments: { ...SPEC.environments, qa: environmentDoc() },
      manifests: { ...SPEC.manifests, "qa.yaml": [userDoc({ userName: "tester", environments: ["qa"] })] },
    });
    const { result, cache } = load(more, dir);
    expect(cache.stats.states).toBe(0);
    expect(result).toEqual(uncached(more));
  });

  it("misses when egp changes (another version or code)", async () => {
    const dir = await stateDir();
    const repo = repository(SPEC);
    load(repo, dir);
    const other = load(repo, dir, VARIABLES, "another egp");
    expect(other.cache.stats).toMatchObject({ states: 0, statesWritten: 1 });
    expect(other.result).toEqual(uncached(repo));
    expect(load(repo, dir, VARIABLES, "another egp").cache.stats.states).toBe(1);
  });

  it.each(SPOILT)("ignores a state entry that is %s, and writes it again", async (_name, spoil) => {
    const dir = await stateDir();
    const repo = repository(SPEC);
    load(repo, dir);
    for (const file of stateFiles(dir)) writeFileSync(file, spoil(readFileSync(file)));
    const { result, cache } = load(repo, dir);
    expect(cache.stats).toMatchObject({ states: 0, statesWritten: 1 });
    expect(result).toEqual(uncached(repo));
    expect(load(repo, dir).cache.stats.states).toBe(1);
  });

  it("is sealed: one byte of a kept value changed (a name) and the entry is not used", async () => {
    const dir = await stateDir();
    const repo = repository(SPEC);
    load(repo, dir);
    expect(changeOneByte(stateFiles(dir))).toHaveLength(1);
    const { result, cache } = load(repo, dir);
    expect(cache.stats).toMatchObject({ states: 0, rejected: 1, statesWritten: 1 });
    expect(result).toEqual(uncached(repo));
  });

  it("keeps no state whose documents name a variable, and no substituted value in what it keeps", async () => {
    const dir = await stateDir();
    const secret = "Zq7-never-stored-4410";
    const variables = { ...VARIABLES, EGP_SVC_PASSWORD: secret };
    const named = repository({
      ...SPEC,
      manifests: {
        ...SPEC.manifests,
        "svc.yaml": [userDoc({ userName: "svc", initialPassword: "${EGP_SVC_PASSWORD}" })],
      },
    });
    const run = load(named, dir, variables);
    expect(run.result.ok).toBe(true);
    expect(run.cache.stats.statesWritten).toBe(0);
    expect(load(named, dir, variables).result).toEqual(uncached(named, variables));

    // The environment file's connection may come from variables: the state is kept, without them.
    const plain = repository(SPEC);
    expect(load(plain, dir).cache.stats.statesWritten).toBe(1);
    const bytes = Buffer.concat(stateFiles(dir).map((file) => readFileSync(file)));
    expect(bytes.includes(Buffer.from("First 7", "latin1"))).toBe(true);
    for (const value of [secret, VARIABLES.EGP_PROD_PASSWORD]) {
      expect(bytes.includes(Buffer.from(value, "latin1"))).toBe(false);
      expect(bytes.includes(Buffer.from(value, "utf16le"))).toBe(false);
    }
  });

  it("keeps no state when a variable gives the environment what its documents see (packagesFrom)", async () => {
    const dir = await stateDir();
    const repo = repository({
      ...SPEC,
      environments: { ...SPEC.environments, prod: realEnvironmentDoc({ packagesFrom: "${EGP_SOURCE}" }) },
    });
    const variables = { ...VARIABLES, EGP_SOURCE: "dev" };
    const run = load(repo, dir, variables);
    expect(run.result.ok).toBe(true);
    expect(run.cache.stats.statesWritten).toBe(0);
  });

  it("runs the rules again: a rule that now has something to say is said with its file, line and column", async () => {
    const dir = await stateDir();
    // The account egp logs in as comes from a variable; jdoe is inactive in the manifests.
    const repo = repository({
      ...SPEC,
      environments: {
        ...SPEC.environments,
        prod: realEnvironmentDoc({ packagesFrom: "dev", auth: { username: "${EGP_USER}", password: "x" } }),
      },
      manifests: { ...SPEC.manifests, "jdoe.yaml": [userDoc({ userName: "jdoe", status: "inactive" })] },
    });
    const asService = { ...VARIABLES, EGP_USER: "svc_gitops" };
    expect(load(repo, dir, asService).cache.stats.statesWritten).toBe(1);
    const asJdoe = { ...VARIABLES, EGP_USER: "jdoe" };
    const { result, cache } = load(repo, dir, asJdoe);
    expect(result.ok).toBe(false);
    expect(result).toEqual(uncached(repo, asJdoe));
    expect(result.ok ? [] : lines(result.errors)).toEqual([
      expect.stringMatching(
        /^manifests\/jdoe\.yaml:\d+:\d+ users\[0\]\.status: this is the account egp logs in as/,
      ),
    ]);
    // It took the long way: the files' own entries were read.
    expect(cache.stats.hits).toBeGreaterThan(0);
    expect(load(repo, dir, asService).cache.stats.states).toBe(1);
  });

  it("is for one environment: a load of every environment neither reads nor writes it", async () => {
    const dir = await stateDir();
    const repo = repository(SPEC);
    load(repo, dir);
    const cache = new ManifestCache(dir);
    const all = validateRepository(repo, { variables: VARIABLES, fileExists: () => true, cache });
    cache.save();
    expect(cache.stats).toMatchObject({ states: 0, statesWritten: 0 });
    expect(all).toEqual(validateRepository(repo, { variables: VARIABLES, fileExists: () => true }));
  });
});

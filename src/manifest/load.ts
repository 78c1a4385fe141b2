import { createHash, type Hash } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { basename, extname, join, matchesGlob, relative, resolve, sep } from "node:path";
import { safeParseFast } from "../schema/as-is.ts";
import type { SafeParse } from "../schema/validate.ts";
import type { CachedFile, CachedState, ManifestCache } from "./cache.ts";
import { type DesiredState, deepFreeze } from "./desired-state.ts";
import { type EnvironmentConfig, EnvironmentDocument, normalizeEnvironment } from "./environment.ts";
import { ManifestError, type ManifestIssue, type SourceLocation, sortIssues } from "./errors.ts";
import { bytesOf, fileRead, type RepositoryFile } from "./file-bytes.ts";
import { instanceIdentityOfDocument } from "./instance-identity.ts";
import {
  BUILT_IN_DOCUMENT_KINDS,
  type DesiredDocument,
  type DesiredLists,
  type DesiredPrunePolicy,
  type DocumentKinds,
} from "./kinds/index.ts";
import {
  ENVIRONMENT_NAME,
  type EnvironmentContext,
  isAbsent,
  type Kind,
  type PreparedDocument,
} from "./kinds/kind.ts";
import type { Path } from "./path.ts";
import { type Reporter, reporterFor } from "./report.ts";
import { environmentRules, type PlacedDocument } from "./rules.ts";
import { refuseUnhideable, type SensitiveValue, sensitiveValuesOf } from "./sensitive.ts";
import { substituteDocument, type UnsetVariables, type Variables } from "./substitute.ts";
import { fastParser, type ManifestParser, type ParsedFile, type SourceDocument } from "./yaml-source.ts";
import { reportZodIssues } from "./zod-issues.ts";

export interface Repository {
  /** Absolute root: relative paths in environment files resolve against it. */
  dir: string;
  /** `environments/*.yaml`, sorted by path. */
  environments: RepositoryFile[];
  /** `manifests/**\/*.yaml`, sorted by path. */
  manifests: RepositoryFile[];
}

export interface LoadOptions {
  /** Load this environment only; by default every environment. */
  env?: string;
  /** Values for `${VAR}`; `process.env` by default. */
  variables?: Variables;
  /** For the `tls.caFile` check; `fs.existsSync` by default. */
  fileExists?: (path: string) => boolean;
  /** An unset `${VAR}`: an error (the default), or kept as written for an offline check (substitute.ts). */
  unsetVariables?: UnsetVariables;
  /**
   * Package documents apply to the environment loaded even when it has no packagesFrom: it is the
   * one they are built on (`egp release create --from`).
   */
  buildPackages?: boolean;
  /** Parsed and validated manifest files, by their bytes (cache.ts); the caller saves it after the load. */
  cache?: ManifestCache;
  /**
   * The environment's state, read ahead from `cache` (`openState`) under `key`, which is
   * `stateKeyFor` of this very repository, environment and options: the load takes both instead of
   * hashing every file and reading the entry again (`state` undefined: the cache had none to give).
   */
  readAhead?: { key: string; state: CachedState | undefined };
  /** The document kinds to load (a kinds value's `documents`); egp's own by default. */
  kinds?: DocumentKinds;
  /** How YAML files are read; the fast path (`fastParser`) by default, `yamlParser` the plain variant. */
  parser?: ManifestParser;
  /** How documents are checked against their kind's schema; the shortcut of schema/as-is.ts by default. */
  validate?: SafeParse;
}

export interface LoadStats {
  /** Manifest documents validated (those that apply to the environments loaded). */
  documents: number;
  /** Manifest files read. */
  files: number;
  /** Environments loaded. */
  environments: number;
}

export type LoadResult =
  | { ok: true; states: DesiredState[]; warnings: ManifestIssue[]; stats: LoadStats }
  | { ok: false; errors: ManifestIssue[]; warnings: ManifestIssue[]; stats: LoadStats };

const YAML_EXTENSIONS = new Set([".yaml", ".yml"]);

async function listYaml(root: string, folder: string, recursive: boolean): Promise<string[]> {
  const entries = await readdir(join(root, folder), { recursive, withFileTypes: true }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return [];
      throw error;
    },
  );
  return entries
    .filter((entry) => entry.isFile() && YAML_EXTENSIONS.has(extname(entry.name)))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join("/"))
    .filter((path) => !path.split("/").some((part) => part.startsWith(".")))
    .sort();
}

/** An environment's name: its file's name without the extension (`environments/prod.yaml` is prod). */
export const environmentNameOf = (path: string): string => basename(path, extname(path));

/** The names of environments/*.yaml, as the loader names them, without reading the files. */
export async function environmentNames(directory: string): Promise<string[]> {
  return [...new Set((await listYaml(resolve(directory), "environments", false)).map(environmentNameOf))];
}

/** Reads `environments/*.yaml` and `manifests/**\/*.yaml` (hidden files and folders are skipped). */
export async function readRepository(
  directory: string,
  options: { manifests?: boolean } = {},
): Promise<Repository> {
  const dir = resolve(directory);
  const read = async (path: string) => fileRead(path, await readFile(join(dir, path)));
  const [environments, manifests] = await Promise.all([
    listYaml(dir, "environments", false),
    // `manifests: false`: the environment files alone, for a caller that needs only what they name.
    options.manifests === false ? [] : listYaml(dir, "manifests", true),
  ]);
  return {
    dir,
    environments: await Promise.all(environments.map(read)),
    manifests: await Promise.all(manifests.map(read)),
  };
}

/**
 * The repository with only the manifest files the globs match (`--manifests`, as `kubectl apply -f`
 * chooses files). A glob is matched against the path from the repository root
 * (`manifests/users/*.yaml`) and from manifests/ (`users/*.yaml`); `**` crosses folders. A glob
 * that matches no file is an error, as a typo would otherwise plan against nothing.
 */
export function selectManifests(repository: Repository, globs: readonly string[] | undefined): Repository {
  if (!globs || globs.length === 0) return repository;
  const matches = (glob: string, path: string) =>
    matchesGlob(path, glob) || matchesGlob(path, `manifests/${glob.replace(/^\.\//, "")}`);
  const unmatched = globs.filter((glob) => !repository.manifests.some((file) => matches(glob, file.path)));
  if (unmatched.length > 0)
    throw new ManifestError(
      unmatched.map((glob) =>
        fileIssue("manifests/", `--manifests ${JSON.stringify(glob)} matches no manifest file`),
      ),
    );
  const manifests = repository.manifests.filter((file) => globs.some((glob) => matches(glob, file.path)));
  return { ...repository, manifests };
}

function fileIssue(file: string, message: string): ManifestIssue {
  return { file, line: 0, column: 0, severity: "error", path: "", message };
}

function environmentFiles(repository: Repository, issues: ManifestIssue[]): Map<string, RepositoryFile> {
  const files = new Map<string, RepositoryFile>();
  for (const file of repository.environments) {
    const name = environmentNameOf(file.path);
    if (!ENVIRONMENT_NAME.test(name)) {
      issues.push(fileIssue(file.path, "an environment name is letters, digits, '.', '_' and '-'"));
      continue;
    }
    const other = files.get(name);
    if (other) issues.push(fileIssue(file.path, `environment ${name} is also defined by ${other.path}`));
    else files.set(name, file);
  }
  if (repository.environments.length === 0)
    issues.push(fileIssue("environments/", "no environment files; add environments/<env>.yaml"));
  return files;
}

/** A manifest document, validated once, to be normalized for each environment it applies to. */
interface ManifestEntry {
  kind: Kind<DesiredDocument>;
  document: SourceDocument;
  prefix: Path;
  /** Environment names it applies to; null: all. */
  scope: ReadonlySet<string> | null;
  /** Null when the document is invalid. */
  prepared: PreparedDocument<DesiredDocument> | null;
}

function appliesTo(entry: { scope: ReadonlySet<string> | null }, names: Iterable<string>): boolean {
  if (!entry.scope) return true;
  for (const name of names) if (entry.scope.has(name)) return true;
  return false;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Reads `environments:` before validation, to know whether the document concerns this run at all. */
function scopeOf(
  value: Record<string, unknown>,
  known: ReadonlySet<string>,
  report: ReturnType<typeof reporterFor>,
): ReadonlySet<string> | null {
  const list = value.environments;
  // A malformed or empty list is left to the schema, which reports it; until then it scopes nothing.
  if (!Array.isArray(list) || list.length === 0 || !list.every((item) => typeof item === "string"))
    return null;
  list.forEach((name: string, index) => {
    if (!known.has(name))
      report.error(
        ["environments", index],
        `unknown environment "${name}" (known: ${[...known].join(", ")})`,
      );
  });
  return new Set(list as string[]);
}

const kindNames = (kinds: DocumentKinds) => kinds.all.map((kind) => kind.kind).join(", ");

interface ManifestScan {
  entries: ManifestEntry[];
  documents: number;
}

/** A manifest file parsed, or restored from the cache; `cached`: what the cache has or will have of it. */
function parseManifest(
  file: RepositoryFile,
  cache: ManifestCache | undefined,
  parser: ManifestParser,
): { parsed: ParsedFile; cached: CachedFile | undefined; fresh: boolean } {
  const hit = parser.restore ? cache?.lookup(file) : undefined;
  if (hit && parser.restore)
    return { parsed: parser.restore(file.path, file.text, hit.documents), cached: hit, fresh: false };
  const parsed = parser.parse(file.path, file.text);
  // Taken before substitution, which replaces a document's value and leaves the parsed one as written.
  const cached = cache && parsed.stored ? { documents: parsed.stored(), data: [] } : undefined;
  return { parsed, cached, fresh: true };
}

function scanManifests(
  repository: Repository,
  known: ReadonlySet<string>,
  selected: readonly string[],
  variables: Variables,
  unset: UnsetVariables,
  issues: ManifestIssue[],
  cache: ManifestCache | undefined,
  kinds: DocumentKinds,
  read: Required<Pick<LoadOptions, "parser" | "validate">>,
): ManifestScan {
  const entries: ManifestEntry[] = [];
  let documents = 0;
  for (const file of repository.manifests) {
    const { parsed, cached, fresh } = parseManifest(file, cache, read.parser);
    let changed = fresh;
    issues.push(...parsed.issues);
    for (const [position, document] of parsed.documents.entries()) {
      const anonymous = reporterFor(document, ["documents", document.index], issues);
      if (!isMapping(document.value)) {
        anonymous.error([], `a document is a mapping with a kind (${kindNames(kinds)})`);
        continue;
      }
      const kind = kinds.named(document.value.kind) as Kind<DesiredDocument> | undefined;
      if (!kind) {
        const missing = document.value.kind === undefined;
        anonymous.error(
          ["kind"],
          missing ? `is required (${kindNames(kinds)})` : `expected one of ${kindNames(kinds)}`,
        );
        continue;
      }
      const prefix = [kind.plural, document.index];
      const report = reporterFor(document, prefix, issues);
      const scope = scopeOf(document.value, known, report);
      if (!appliesTo({ scope }, selected)) continue;
      documents += 1;
      const substitution = substituteDocument(document, variables, prefix, unset);
      issues.push(...substitution);
      // Only a document that names no variable is kept validated: its data holds no substituted value.
      const keeps = cached !== undefined && document.substituted.size === 0 && kinds.cacheable(kind);
      const validated = keeps ? cached.data[position] : undefined;
      const before = issues.length;
      if (cache && validated !== undefined) cache.stats.validated += 1;
      const prepared =
        validated !== undefined ? kind.restore(validated) : kind.prepare(report, read.validate);
      if (keeps && validated === undefined && prepared?.data !== undefined && issues.length === before) {
        cached.data[position] = prepared.data;
        changed = true;
      }
      const valid = !substitution.some((issue) => issue.severity === "error") && !report.failed();
      entries.push({ kind, document, prefix, scope, prepared: valid ? prepared : null });
    }
    if (cache && cached && changed) cache.remember(file, cached);
  }
  return { entries, documents };
}

interface LoadedEnvironment {
  config: EnvironmentConfig | null;
  document?: SourceDocument;
  /** Its substituted values: the url, the user name, the password. */
  sensitive?: SensitiveValue[];
}

function loadEnvironmentFile(
  name: string,
  file: RepositoryFile,
  known: ReadonlySet<string>,
  repository: Repository,
  options: Required<Pick<LoadOptions, "variables" | "fileExists" | "unsetVariables" | "parser">>,
  issues: ManifestIssue[],
): LoadedEnvironment {
  const { parser, ...settings } = options;
  const parsed = parser.parse(file.path, file.text);
  issues.push(...parsed.issues);
  if (parsed.issues.some((issue) => issue.severity === "error")) return { config: null };
  const [document, ...extra] = parsed.documents;
  if (!document) {
    issues.push(fileIssue(file.path, "is empty; an environment file needs at least url"));
    return { config: null };
  }
  const report = reporterFor(document, [], issues);
  for (const more of extra) reporterFor(more, [], issues).error([], "an environment file holds one document");
  const instanceId = instanceIdentityOfDocument(document.value);
  const substitution = substituteDocument(document, settings.variables, [], settings.unsetVariables);
  issues.push(...substitution);
  const parsedDoc = EnvironmentDocument.safeParse(document.value);
  if (!parsedDoc.success) {
    reportZodIssues(parsedDoc.error, report, { schema: EnvironmentDocument });
    return { config: null, document };
  }
  const config = normalizeEnvironment(
    parsedDoc.data,
    { name, dir: repository.dir, knownEnvironments: known, ...settings },
    report,
  );
  if (config && instanceId) config.instanceId = instanceId;
  return {
    config: !substitution.some((issue) => issue.severity === "error") && extra.length === 0 ? config : null,
    document,
    sensitive: sensitiveValuesOf(document, report, undefined),
  };
}

/** Hashes each file as the string `${path}\0${text}\0` would be, without building that string. */
function hashFiles(hash: Hash, files: Iterable<RepositoryFile>): Hash {
  for (const file of files) hash.update(`${file.path}\u0000`).update(bytesOf(file)).update("\u0000");
  return hash;
}

function digestOf(files: readonly RepositoryFile[]): string {
  return hashFiles(createHash("sha256"), files).digest("hex");
}

function needsSource(kind: string, environment: EnvironmentConfig): string {
  return `names ${environment.name}, which has no packagesFrom: a ${kind} is promoted into an environment from the one its packagesFrom names`;
}

/** What a state is made of before its assembly: each document as normalized, with its reporter. */
interface PlacedState {
  documents: PlacedDocument[];
  sensitive: SensitiveValue[];
}

function placeDocuments(
  environment: EnvironmentConfig,
  entries: readonly ManifestEntry[],
  environmentValues: readonly SensitiveValue[],
  issues: ManifestIssue[],
  buildPackages = false,
): PlacedState {
  const context: EnvironmentContext = {
    name: environment.name,
    file: environment.file,
    roles: environment.roles,
    groups: environment.groups,
    domains: environment.domains,
    ...(environment.groupsFromInstance ? { groupsFromInstance: true } : {}),
    ...(environment.rolesFromInstance ? { rolesFromInstance: true } : {}),
    ...(environment.installCodes ? { installCodes: environment.installCodes } : {}),
  };
  const documents: PlacedDocument[] = [];
  const sensitive: SensitiveValue[] = [...environmentValues];
  for (const entry of entries) {
    if (!entry.prepared || (entry.scope && !entry.scope.has(environment.name))) continue;
    const report = reporterFor(entry.document, entry.prefix, issues);
    // A release's packages come from the store; Package documents then describe what it was built from.
    const packaged = environment.packagesFrom || environment.release || buildPackages;
    if (entry.kind.needsPackagesFrom && !packaged) {
      if (entry.scope) report.error(["environments"], needsSource(entry.kind.kind, environment));
      continue;
    }
    const desired = entry.prepared.normalize(context, report);
    if (entry.document.substituted.size > 0) {
      refuseUnhideable(entry.document, desired, entry.kind.key.field, report);
      const at = (desired as { source?: SourceLocation }).source;
      sensitive.push(...sensitiveValuesOf(entry.document, report, at));
    }
    documents.push({ kind: entry.kind, desired, report });
  }
  return { documents, sensitive };
}

/** Runs the environment's rules; true when they said nothing. */
function runRules(
  environment: EnvironmentConfig,
  documents: PlacedDocument[],
  issues: ManifestIssue[],
  kinds: DocumentKinds,
): boolean {
  const before = issues.length;
  for (const rule of environmentRules(kinds)) rule({ environment, documents });
  return issues.length === before;
}

function assembleState(
  environment: EnvironmentConfig,
  packagesFrom: EnvironmentConfig | undefined,
  all: readonly DesiredDocument[],
  files: readonly RepositoryFile[],
  sensitive: SensitiveValue[],
  kinds: DocumentKinds,
): DesiredState {
  const desired = all.filter((d) => !isAbsent(d));
  // Each listed kind's documents under its plural, in the list's order. The filter by `kind` is
  // what makes each list of its kind's type; TypeScript can't follow it through the map.
  const lists = Object.fromEntries(
    kinds.listed.map((kind) => [kind.plural, desired.filter((d) => d.kind === kind.kind)]),
  ) as unknown as DesiredLists;
  const state: DesiredState = {
    environment,
    ...lists,
    prune: desired.find((d): d is DesiredPrunePolicy => d.kind === "PrunePolicy") ?? kinds.noPruning,
    absent: all.filter(isAbsent),
    digest: digestOf(files),
    files: files.map((file) => file.path),
    sensitive,
  };
  if (packagesFrom) state.packagesFrom = packagesFrom;
  return deepFreeze(state);
}

/** A chain of packagesFrom that comes back to where it started would promote in circles. */
function promotionCycles(loaded: ReadonlyMap<string, LoadedEnvironment>, issues: ManifestIssue[]): void {
  for (const [start, { config, document }] of loaded) {
    const chain = [start];
    let next = config?.packagesFrom;
    while (next && !chain.includes(next)) {
      chain.push(next);
      next = loaded.get(next)?.config?.packagesFrom;
    }
    // Reported once per cycle, by its alphabetically first member.
    if (!document || next !== start || [...chain].sort()[0] !== start) continue;
    reporterFor(document, [], issues).error(
      ["packagesFrom"],
      `promotion cycle: ${[...chain, start].join(" → ")}`,
    );
  }
}

/**
 * The key an environment's state is kept under: every environment and manifest file's path and
 * bytes (the names of the environments and every document's text), and the load's options. What
 * else a state depends on is kept out by `keepsState`.
 */
export function stateKeyFor(
  repository: Repository,
  env: string,
  {
    unsetVariables = "error",
    buildPackages = false,
  }: Pick<LoadOptions, "unsetVariables" | "buildPackages"> = {},
): string {
  const head = `state\u0000${env}\u0000${unsetVariables}\u0000${buildPackages}\u0000`;
  const files = [...repository.environments, ...repository.manifests];
  return hashFiles(createHash("sha256").update(head), files).digest("hex");
}

/** The parts of an environment file that no document's normalization reads (a rule may: they run again). */
const CONNECTION_ONLY = new Set(["url", "instance", "auth", "tls", "limits", "timeouts", "waits"]);

/**
 * A state is kept, and taken from the cache, only when it is the same for the same bytes: egp's own
 * kinds and rules only (a plugin kind's code is not in the cache's fingerprint), and no value
 * from a variable that its documents could see. Its documents' variables are checked where it is
 * kept; the environment file may take its connection from variables (url, auth, …), nothing else.
 */
function keepsState(environment: LoadedEnvironment | undefined, kinds: DocumentKinds): boolean {
  if (!environment?.document || !kinds.builtInOnly) return false;
  for (const path of environment.document.substituted.keys())
    if (!CONNECTION_ONLY.has(path.split(/[.[]/, 1)[0] ?? "")) return false;
  return true;
}

/** The state kept under `key`: the one read ahead, or the cache's. */
function readState(
  cache: ManifestCache,
  env: string,
  key: string,
  ahead: LoadOptions["readAhead"],
): CachedState | undefined {
  if (!ahead) return cache.lookupState(env, key);
  if (ahead.state) cache.stats.states += 1;
  return ahead.state;
}

/** Plain data only (what v8 serialization gives back as it was): no class instance, Map or Set. */
function isPlainData(value: unknown): boolean {
  if (value === null || typeof value !== "object")
    return typeof value !== "function" && typeof value !== "symbol";
  if (Array.isArray(value)) return value.every(isPlainData);
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  for (const key in value) if (!isPlainData((value as Record<string, unknown>)[key])) return false;
  return true;
}

/** Thrown by the reporter of a state from the cache: a rule had something to say. */
class RuleSpoke extends Error {}

const spoke = (): never => {
  throw new RuleSpoke();
};

/** The reporter of a document from the cached state, whose source was not parsed. */
const UNPARSED: Reporter = {
  get document(): never {
    return spoke();
  },
  error: spoke,
  warning: spoke,
  quote: spoke,
  where: spoke,
  failed: () => false,
};

/**
 * An environment's state from the cache, with its environment files read now. Its rules run again
 * (one may read the environment file's connection, as the account egp logs in as); when one has
 * something to say, the load is made the long way, where what it says gets its file and line.
 */
function stateFromCache(
  hit: CachedState,
  environment: EnvironmentConfig,
  packagesFrom: EnvironmentConfig | undefined,
  files: readonly RepositoryFile[],
  environmentValues: readonly SensitiveValue[],
  issues: ManifestIssue[],
  kinds: DocumentKinds,
): DesiredState | undefined {
  const documents: PlacedDocument[] = [];
  for (const desired of hit.documents as DesiredDocument[]) {
    const kind = kinds.named(desired.kind);
    if (!kind) return undefined;
    documents.push({ kind, desired, report: UNPARSED });
  }
  try {
    runRules(environment, documents, issues, kinds);
  } catch (error) {
    if (error instanceof RuleSpoke) return undefined;
    throw error;
  }
  issues.push(...hit.warnings);
  return assembleState(
    environment,
    packagesFrom,
    hit.documents as DesiredDocument[],
    files,
    [...environmentValues],
    kinds,
  );
}

/** Validates a repository that has been read: the three steps, for every environment or one. */
export function validateRepository(repository: Repository, options: LoadOptions = {}): LoadResult {
  const issues: ManifestIssue[] = [];
  const kinds = options.kinds ?? BUILT_IN_DOCUMENT_KINDS;
  const settings = {
    variables: options.variables ?? process.env,
    fileExists: options.fileExists ?? existsSync,
    unsetVariables: options.unsetVariables ?? "error",
    parser: options.parser ?? fastParser,
  };
  const environmentFileOf = environmentFiles(repository, issues);
  const known = new Set(environmentFileOf.keys());
  if (options.env !== undefined && !known.has(options.env))
    issues.push(
      fileIssue(
        `environments/${options.env}.yaml`,
        `no such environment (known: ${[...known].join(", ") || "none"})`,
      ),
    );
  const selected = options.env !== undefined ? [options.env].filter((name) => known.has(name)) : [...known];

  const loaded = new Map<string, LoadedEnvironment>();
  const configOf = (name: string) => {
    const file = environmentFileOf.get(name);
    if (!loaded.has(name) && file)
      loaded.set(name, loadEnvironmentFile(name, file, known, repository, settings, issues));
    return loaded.get(name)?.config ?? null;
  };
  const filesOf = (config: EnvironmentConfig, source: EnvironmentConfig | undefined) => [
    environmentFileOf.get(config.name)!,
    ...(source ? [environmentFileOf.get(source.name)!] : []),
    ...repository.manifests,
  ];
  const valuesOf = (config: EnvironmentConfig, source: EnvironmentConfig | undefined) => [
    ...(loaded.get(config.name)?.sensitive ?? []),
    ...(source ? (loaded.get(source.name)?.sensitive ?? []) : []),
  ];

  // One environment: its state may come whole from the cache (see `keepsState`).
  const stateCache = options.env !== undefined && selected.length === 1 ? options.cache : undefined;
  const stateKey =
    stateCache && options.env !== undefined
      ? (options.readAhead?.key ?? stateKeyFor(repository, options.env, options))
      : "";
  if (stateCache && options.env !== undefined) {
    const config = configOf(options.env);
    const source = config?.packagesFrom ? configOf(config.packagesFrom) : undefined;
    const usable = config !== null && source !== null && keepsState(loaded.get(config.name), kinds);
    const hit = usable ? readState(stateCache, config.name, stateKey, options.readAhead) : undefined;
    const state =
      usable && hit
        ? stateFromCache(
            hit,
            config,
            source,
            filesOf(config, source),
            valuesOf(config, source),
            issues,
            kinds,
          )
        : undefined;
    if (hit && state)
      return finish(issues, [state], {
        documents: hit.count,
        files: repository.manifests.length,
        environments: 1,
      });
  }

  const scan = scanManifests(
    repository,
    known,
    selected,
    settings.variables,
    settings.unsetVariables,
    issues,
    options.cache,
    kinds,
    { parser: settings.parser, validate: options.validate ?? safeParseFast },
  );

  const states: DesiredState[] = [];
  let keep: { env: string; documents: DesiredDocument[] } | undefined;
  for (const name of selected) {
    const config = configOf(name);
    const source = config?.packagesFrom ? configOf(config.packagesFrom) : undefined;
    if (!config || source === null) continue;
    const errorsBefore = errorCount(issues);
    const placed = placeDocuments(
      config,
      scan.entries,
      valuesOf(config, source),
      issues,
      options.buildPackages,
    );
    const quiet = runRules(config, placed.documents, issues, kinds);
    if (errorCount(issues) > errorsBefore) continue;
    const documents = placed.documents.map((document) => document.desired);
    states.push(assembleState(config, source, documents, filesOf(config, source), placed.sensitive, kinds));
    if (
      stateCache &&
      quiet &&
      keepsState(loaded.get(name), kinds) &&
      scan.entries.every((entry) => entry.document.substituted.size === 0) &&
      documents.every(isPlainData)
    )
      keep = { env: name, documents };
  }
  if (options.env === undefined) promotionCycles(loaded, issues);
  const stats = {
    documents: scan.documents,
    files: repository.manifests.length,
    environments: selected.length,
  };
  const result = finish(issues, states, stats);
  if (stateCache && keep && result.ok) {
    const manifests = new Set(repository.manifests.map((file) => file.path));
    const warnings = result.warnings.filter((issue) => manifests.has(issue.file));
    stateCache.rememberState(keep.env, stateKey, {
      documents: keep.documents,
      warnings,
      count: scan.documents,
    });
  }
  return result;
}

function errorCount(issues: readonly ManifestIssue[]): number {
  return issues.filter((issue) => issue.severity === "error").length;
}

function finish(issues: ManifestIssue[], states: DesiredState[], stats: LoadStats): LoadResult {
  const sorted = sortIssues(issues);
  const errors = sorted.filter((issue) => issue.severity === "error");
  const warnings = sorted.filter((issue) => issue.severity === "warning");
  return errors.length > 0 ? { ok: false, errors, warnings, stats } : { ok: true, states, warnings, stats };
}

/** Reads and validates a repository. */
export async function loadRepository(dir: string, options: LoadOptions = {}): Promise<LoadResult> {
  return validateRepository(await readRepository(dir), options);
}

/** Loads one environment's desired state, or throws a `ManifestError` carrying every error. */
export async function loadEnvironment(
  dir: string,
  env: string,
  options: Omit<LoadOptions, "env"> = {},
): Promise<{ state: DesiredState; warnings: ManifestIssue[] }> {
  return environmentOf(await readRepository(dir), env, options);
}

/** `loadEnvironment` for a repository already read. */
export function environmentOf(
  repository: Repository,
  env: string,
  options: Omit<LoadOptions, "env"> = {},
): { state: DesiredState; warnings: ManifestIssue[] } {
  const result = validateRepository(repository, { ...options, env });
  if (!result.ok) throw new ManifestError(result.errors);
  const [state] = result.states;
  if (!state) throw new ManifestError([fileIssue(`environments/${env}.yaml`, "was not loaded")]);
  return { state, warnings: result.warnings };
}

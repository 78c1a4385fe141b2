import { createHash } from "node:crypto";
import type { PlatformClient } from "../client/client.ts";
import {
  type CachedState,
  type DesiredState,
  type EnvironmentConfig,
  environmentOf,
  type LoadOptions,
  type ManifestCache,
  type ManifestIssue,
  type Repository,
  readReleaseFile,
  readRepository,
  selectManifests,
  stateKeyFor,
  validateRepository,
} from "../manifest/index.ts";
import {
  BUILT_IN_PLANNERS,
  keysToRead,
  narrowDesired,
  type Plan,
  type PlanOptions,
  parseTargets,
  planChanges,
} from "../plan/index.ts";
import {
  type EarlyReads,
  type LiveState,
  readCatalogue,
  readLiveState,
  readOnce,
  rolesUnchecked,
  type SharedReads,
  sharedReads,
  startEarlyReads,
  startPackagesAhead,
} from "../state/index.ts";
import type { ReleaseStore } from "../store/index.ts";
// Types only: a plan with egp's own kinds loads no part of the apply and export stages (kinds.ts bundles them).
import type { Kinds } from "./kinds.ts";
import { assertSomethingChecked, type UncheckedRead } from "./nothing-checked.ts";

/**
 * A client for an environment. The caller decides what opening means (a real instance, an
 * emulator started for it) and keeps one client per environment: the composer opens the same
 * environment more than once and expects the same session.
 */
export type OpenEnvironment = (config: EnvironmentConfig) => Promise<PlatformClient>;

export interface PlanEnvironmentOptions {
  /** The repository: `environments/` and `manifests/`. */
  dir: string;
  env: string;
  open: OpenEnvironment;
  /** What the plan is made with; `targets` and `manifests` also narrow what is loaded and read. */
  options?: PlanOptions;
  /** Called with the desired state once it is loaded, before anything is read (the CLI hides its values). */
  onDesired?: (desired: DesiredState) => void;
  logger?: { debug(fields: object, message: string): void };
  /** Parsed and validated manifests kept between runs (`.egp/cache/`); none by default. Saved after the load. */
  cache?: ManifestCache;
  /** The plan's `createdAt` (default: now). */
  now?: () => Date;
  /** The release store, for an environment that runs a release (`release:`). */
  store?: ReleaseStore;
  /**
   * Asked with the desired state, its release file read, before the live state is read; it throws
   * to refuse the plan (the release stage's gate: a rejected or unverified release). A state it
   * returns is planned instead (a read-only view plans a rejected release's environment without it).
   */
  gate?: (desired: DesiredState) => Promise<DesiredState | undefined>;
  /**
   * Catalogues, versions and trees kept across the plans of one run (`sharedReads()`), by
   * environment: plans of several environments read a shared source once, and an apply's final
   * check takes what its verify read; never kept across a write (shared-reads.ts).
   */
  shared?: SharedReads;
  /** Read only what the manifests manage, where a kind can (`ReadLiveOptions.managedOnly`): status. */
  managedOnly?: boolean;
  /**
   * The kinds to load, read and plan (`createKinds([...builtInKinds, ...plugins])`); egp's own by
   * default. A plan made with plugins is applied with the same kinds (`ApplyPlanOptions.kinds`).
   */
  kinds?: Kinds;
  /** How the manifests are parsed and validated (LoadOptions); the loader's defaults when absent. */
  read?: Pick<LoadOptions, "parser" | "validate">;
  /**
   * A read-only view's (`drift`, `status`): a package source that can't be reached, or a kind that
   * can't be read, is left out of the comparison and said (`PlanContext.unchecked`), not a failure.
   */
  tolerant?: boolean;
  /**
   * Called once the live state's requests are answered, before its digests and the plan are made
   * from it: the instances are no longer needed, so a caller that only plans logs out meanwhile.
   */
  afterRead?: () => void;
}

/** What a tolerant view could not compare, and why. */
export type Unchecked = UncheckedRead;

export interface PlanContext {
  desired: DesiredState;
  live: LiveState;
  warnings: ManifestIssue[];
  /** A tolerant view's: what was left out of the comparison (its documents too), and why. */
  unchecked?: Unchecked[];
}

export interface EnvironmentPlan extends PlanContext {
  plan: Plan;
}

interface Reading {
  early: EarlyReads;
  /** The environment as its files say, without the manifests. */
  files: DesiredState;
}

/**
 * Logs in to the environment and starts the reads that do not depend on the manifests, when its
 * environment file is valid (otherwise the full load reports why). It returns once the small read
 * has answered: the session then exists and the large one is on the wire, so the instance works on
 * it while this process parses the manifests.
 */
async function startReading(
  repository: Repository,
  env: string,
  open: OpenEnvironment,
  keys: (kind: string) => readonly string[] | undefined,
  run: {
    everyKind: boolean;
    narrowed: boolean;
    shared: SharedReads;
    managedOnly: boolean;
    kinds?: Kinds;
    read: Pick<LoadOptions, "parser"> | undefined;
    tolerant?: boolean;
  },
): Promise<Reading | undefined> {
  const environments = validateRepository(
    { ...repository, manifests: [] },
    { ...run.read, env, ...(run.kinds ? { kinds: run.kinds.documents } : {}) },
  );
  const files = environments.ok ? environments.states[0] : undefined;
  if (!files) return undefined;
  const mentioned = run.everyKind ? () => true : (kind: string) => mentions(repository, kind);
  const { packagesFrom, environment } = files;
  // The source's session and catalogue start with the target's: the catalogue needs no manifest.
  const fromSource = packagesFrom && !environment.release && !run.narrowed && mentioned("Package");
  const [target, source] = await Promise.all([
    open(environment),
    // A view goes on without a source it can't reach: readEnvironment says so.
    fromSource ? open(packagesFrom).catch((error: unknown) => tolerated(run.tolerant, error)) : undefined,
  ]);
  if (source && packagesFrom)
    readOnce(run.shared.of(packagesFrom.name), "catalogue", () => readCatalogue(source)).catch(
      () => undefined,
    );
  const early = startEarlyReads(
    target,
    keys,
    mentioned,
    run.managedOnly,
    run.shared.of(environment.name),
    run.kinds?.live,
  );
  // A race of no reads would never settle.
  if (early.size > 0) await Promise.race(early.values()).catch(() => undefined);
  return { early, files };
}

/** Nothing, for a tolerant view; the error again otherwise. */
function tolerated(tolerant: boolean | undefined, error: unknown): undefined {
  if (!tolerant) throw error;
  return undefined;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The desired state without the documents of the kinds whose live part could not be read (and of
 * the kinds that name them: a user names its security parameter), so that none is planned as
 * missing.
 */
function withoutUnread(
  desired: DesiredState,
  unread: readonly { part: string; kinds: readonly string[] }[],
  kinds: Kinds | undefined,
): DesiredState {
  const planners = kinds?.planners ?? BUILT_IN_PLANNERS;
  const out: Record<string, unknown> = { ...desired };
  for (const { part, kinds: named } of unread) {
    if (Array.isArray(out[part])) out[part] = [];
    for (const planner of planners)
      if (planner.documents && named.includes(planner.kind)) out[planner.documents.plural] = [];
  }
  return out as DesiredState;
}

/**
 * Whether a manifest's text may hold a document of `kind`: the word appears in it. It errs towards
 * yes (a name or a comment with the word), so that it only ever saves a read no manifest needs.
 */
function mentions(repository: Repository, kind: string): boolean {
  const word = new RegExp(`\\b${kind}\\b`);
  return repository.manifests.some((file) => word.test(file.text));
}

interface ReadAhead {
  key: string;
  state: Promise<CachedState | undefined>;
  /** Reads started from the state's packages, by part (`ReadLiveOptions.ahead`). */
  reads: ReadonlyMap<string, unknown>;
}

/**
 * The state the last run kept for this environment (`.egp/cache/states/`), read a slice at a time
 * while the early reads are answered, and the package reads its Package documents name, started at
 * once: both instances answer them while this process reads the rest. A plan narrowed by
 * `--target` reads no packages ahead (its packages are not the state's).
 */
async function readAhead(
  repository: Repository,
  env: string,
  cache: ManifestCache,
  reading: Reading,
  open: OpenEnvironment,
  narrowed: boolean,
  shared: SharedReads | undefined,
): Promise<ReadAhead | undefined> {
  const key = stateKeyFor(repository, env);
  const opened = await cache.openState(env, key);
  if (!opened) return undefined;
  const { environment, packagesFrom } = reading.files;
  const reads = new Map<string, unknown>();
  if (!narrowed && packagesFrom && !environment.release && opened.packages.length > 0)
    reads.set(
      "packages",
      startPackagesAhead(
        open(environment),
        open(packagesFrom),
        opened.packages,
        packagesFrom.name,
        { source: shared?.of(packagesFrom.name), target: shared?.of(environment.name) },
        reading.early,
      ),
    );
  return { key, state: opened.state, reads };
}

function loadDesired(
  repository: Repository,
  env: string,
  cache: ManifestCache | undefined,
  kinds: Kinds | undefined,
  read: Pick<LoadOptions, "parser" | "validate"> | undefined,
  readAhead?: LoadOptions["readAhead"],
) {
  const documents = kinds ? { kinds: kinds.documents } : {};
  if (!cache) return environmentOf(repository, env, { ...read, ...documents });
  // Saved whether the load passed or not: a file that parsed is worth keeping while another is fixed.
  try {
    return environmentOf(repository, env, {
      ...read,
      cache,
      ...documents,
      ...(readAhead ? { readAhead } : {}),
    });
  } finally {
    cache.save();
  }
}

/**
 * The desired state with the release its environment runs (`release:`), from its committed file;
 * unchanged without one. The file's text joins the digest: a saved plan is stale once it changes.
 */
async function withReleaseFile(dir: string, desired: DesiredState): Promise<DesiredState> {
  if (!desired.environment.release) return desired;
  const release = await readReleaseFile(dir, desired.environment.release);
  const digest = createHash("sha256")
    .update(`${desired.digest}\0${release.file}\0${release.text}`)
    .digest("hex");
  return { ...desired, release, digest, files: [...desired.files, release.file] };
}

/**
 * Loads the manifests for one environment (those `options.manifests` selects) and reads its live
 * state (and its package source's): with `options.targets`, only what the targets need, where the
 * interface can narrow a read.
 */
export async function readEnvironment(input: PlanEnvironmentOptions): Promise<PlanContext> {
  const { dir, env, open, options = {}, kinds } = input;
  const targets = parseTargets(options.targets, kinds?.steps.kinds);
  // Reads of the source are kept for the plan (or the caller's run): each is made once.
  const shared = input.shared ?? sharedReads();
  const { reading, ahead, loaded } = await loadEnvironment({ ...input, shared }, targets);
  const read = await withReleaseFile(dir, loaded.state);
  const desired = (await input.gate?.(read)) ?? read;
  const warnings = loaded.warnings;
  input.onDesired?.(desired);
  const unchecked: Unchecked[] = [];
  let wanted = narrowDesired(desired, targets, kinds?.planners);
  const target = await open(desired.environment);
  const sourceName = wanted.packagesFrom?.name;
  const source =
    wanted.packagesFrom && wanted.packages.length > 0
      ? await open(wanted.packagesFrom).catch((error: unknown) => {
          tolerated(input.tolerant, error);
          unchecked.push({
            what: `packages (from ${sourceName})`,
            why: `${sourceName} can't be reached: ${messageOf(error)}`,
            error,
          });
          return undefined;
        })
      : undefined;
  if (unchecked.length > 0) wanted = { ...wanted, packages: [] };
  const unread: { part: string; kinds: readonly string[] }[] = [];
  input.logger?.debug({ env, source: source && wanted.packagesFrom?.name }, "reading live state");
  const live = await readLiveState(target, wanted, {
    dir,
    source,
    ...(reading ? { early: reading.early } : {}),
    ...(ahead ? { ahead: ahead.reads } : {}),
    shared,
    ...(options.allowDelete ? { everyKind: true } : {}),
    ...(input.managedOnly ? { managedOnly: true } : {}),
    ...(kinds ? { kinds: kinds.live } : {}),
    ...(input.afterRead ? { afterReads: input.afterRead } : {}),
    ...(input.tolerant
      ? {
          unreadable: (kind, error) => {
            unread.push({ part: kind.part, kinds: kind.needed?.kinds ?? [] });
            unchecked.push({ what: kind.label, why: messageOf(error), error });
          },
        }
      : {}),
  });
  const compared =
    unchecked.length > 0 ? withoutUnread({ ...desired, packages: wanted.packages }, unread, kinds) : desired;
  assertSomethingChecked(desired.environment.name, compared, unchecked, kinds);
  return {
    desired: compared,
    live,
    warnings: [...warnings, ...rolesUnchecked(wanted, live)],
    ...(input.tolerant ? { unchecked } : {}),
  };
}

/**
 * The repository read, the early reads and the reads ahead started, and the desired state loaded.
 * A function of its own so that the files' bytes and text are garbage once it returns, not held
 * while the live state is read beside them.
 */
async function loadEnvironment(input: PlanEnvironmentOptions, targets: ReturnType<typeof parseTargets>) {
  const { dir, env, open, options = {}, kinds } = input;
  const repository = selectManifests(await readRepository(dir), options.manifests);
  const keys = (kind: string) => keysToRead(targets, kind, kinds?.planners);
  const reading = await startReading(repository, env, open, keys, {
    everyKind: options.allowDelete === true,
    narrowed: targets.length > 0,
    shared: input.shared ?? sharedReads(),
    managedOnly: input.managedOnly === true,
    ...(kinds ? { kinds } : {}),
    read: input.read,
    ...(input.tolerant ? { tolerant: true } : {}),
  });
  const ahead =
    input.cache && reading
      ? await readAhead(repository, env, input.cache, reading, open, targets.length > 0, input.shared)
      : undefined;
  const loaded = loadDesired(
    repository,
    env,
    input.cache,
    kinds,
    input.read,
    ahead && { key: ahead.key, state: await ahead.state },
  );
  return { reading, ahead, loaded };
}

/** The composer: reads what the plan needs, then calls the pure planner. */
export async function planEnvironment(input: PlanEnvironmentOptions): Promise<EnvironmentPlan> {
  const context = await readEnvironment(input);
  const plan = planChanges(
    context.desired,
    context.live,
    { ...input.options, createdAt: (input.now?.() ?? new Date()).toISOString() },
    input.kinds,
  );
  return { ...context, plan };
}

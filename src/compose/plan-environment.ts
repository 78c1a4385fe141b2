import type { PlatformClient } from "../client/client.ts";
import {
  type DesiredState,
  type EnvironmentConfig,
  environmentOf,
  type ManifestCache,
  type ManifestIssue,
  type Repository,
  readRepository,
  selectManifests,
  validateRepository,
} from "../manifest/index.ts";
import {
  keysToRead,
  narrowDesired,
  type Plan,
  type PlanOptions,
  parseTargets,
  planChanges,
} from "../plan/index.ts";
import { type EarlyReads, type LiveState, readLiveState, startEarlyReads } from "../state/index.ts";
import type { ReleaseStore } from "../store/index.ts";
import { withRelease } from "./release-gate.ts";

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
}

export interface PlanContext {
  desired: DesiredState;
  live: LiveState;
  warnings: ManifestIssue[];
}

export interface EnvironmentPlan extends PlanContext {
  plan: Plan;
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
): Promise<EarlyReads | undefined> {
  const environments = validateRepository({ ...repository, manifests: [] }, { env });
  const config = environments.ok ? environments.states[0]?.environment : undefined;
  if (!config) return undefined;
  const early = startEarlyReads(await open(config), keys);
  // A race of no reads would never settle.
  if (early.size > 0) await Promise.race(early.values()).catch(() => undefined);
  return early;
}

function loadDesired(repository: Repository, env: string, cache: ManifestCache | undefined) {
  if (!cache) return environmentOf(repository, env);
  // Saved whether the load passed or not: a file that parsed is worth keeping while another is fixed.
  try {
    return environmentOf(repository, env, { cache });
  } finally {
    cache.save();
  }
}

/**
 * Loads the manifests for one environment (those `options.manifests` selects) and reads its live
 * state (and its package source's): with `options.targets`, only what the targets need, where the
 * interface can narrow a read.
 */
export async function readEnvironment(input: PlanEnvironmentOptions): Promise<PlanContext> {
  const { dir, env, open, options = {} } = input;
  const repository = selectManifests(await readRepository(dir), options.manifests);
  const targets = parseTargets(options.targets);
  const early = await startReading(repository, env, open, (kind) => keysToRead(targets, kind));
  const loaded = loadDesired(repository, env, input.cache);
  const desired = await withRelease(dir, loaded.state, input.store);
  const warnings = loaded.warnings;
  input.onDesired?.(desired);
  const wanted = narrowDesired(desired, targets);
  const target = await open(desired.environment);
  const source =
    wanted.packagesFrom && wanted.packages.length > 0 ? await open(wanted.packagesFrom) : undefined;
  input.logger?.debug({ env, source: source && wanted.packagesFrom?.name }, "reading live state");
  const live = await readLiveState(target, wanted, { source, early });
  return { desired, live, warnings };
}

/** The composer: reads what the plan needs, then calls the pure planner. */
export async function planEnvironment(input: PlanEnvironmentOptions): Promise<EnvironmentPlan> {
  const context = await readEnvironment(input);
  const plan = planChanges(context.desired, context.live, {
    ...input.options,
    createdAt: (input.now?.() ?? new Date()).toISOString(),
  });
  return { ...context, plan };
}

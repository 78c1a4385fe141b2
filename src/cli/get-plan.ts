import type { Logger } from "pino";
import {
  type DesiredState,
  environmentOf,
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
import type { Connections } from "./connect.ts";
import { guardDesired } from "./output-guard.ts";

export interface PlanContext {
  desired: DesiredState;
  live: LiveState;
  warnings: ManifestIssue[];
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
  connections: Connections,
  keys: (kind: string) => readonly string[] | undefined,
): Promise<EarlyReads | undefined> {
  const environments = validateRepository({ ...repository, manifests: [] }, { env });
  const config = environments.ok ? environments.states[0]?.environment : undefined;
  if (!config) return undefined;
  const early = startEarlyReads((await connections.open(config)).client, keys);
  // The first answer means the session exists; the other reads are on the wire meanwhile.
  // (No early read at all: nothing to wait for; a race of none would never settle.)
  if (early.size > 0) await Promise.race(early.values()).catch(() => undefined);
  return early;
}

/** What `--target` and `--manifests` select (PlanOptions' `targets` and `manifests`). */
export type Selection = Pick<PlanOptions, "targets" | "manifests">;

/**
 * Loads the manifests for one environment (those `--manifests` selects) and reads its live state
 * (and its package source's): with `--target`, only what the targets need, where the interface can
 * narrow a read.
 */
export async function readContext(
  dir: string,
  env: string,
  connections: Connections,
  logger: Logger,
  selection: Selection = {},
): Promise<PlanContext> {
  const repository = selectManifests(await readRepository(dir), selection.manifests);
  const targets = parseTargets(selection.targets);
  const early = await startReading(repository, env, connections, (kind) => keysToRead(targets, kind));
  const { state: desired, warnings } = environmentOf(repository, env);
  guardDesired(desired);
  const wanted = narrowDesired(desired, targets);
  const target = await connections.open(desired.environment);
  const source =
    wanted.packagesFrom && wanted.packages.length > 0
      ? await connections.open(wanted.packagesFrom)
      : undefined;
  logger.debug({ env, source: source?.name }, "reading live state");
  const live = await readLiveState(target.client, wanted, { source: source?.client, early });
  return { desired, live, warnings };
}

/** The composer: does the I/O, then calls the pure planner. */
export async function getPlan(
  dir: string,
  env: string,
  options: PlanOptions,
  connections: Connections,
  logger: Logger,
): Promise<PlanContext & { plan: Plan }> {
  const context = await readContext(dir, env, connections, logger, options);
  const plan = planChanges(context.desired, context.live, {
    ...options,
    createdAt: new Date().toISOString(),
  });
  return { ...context, plan };
}

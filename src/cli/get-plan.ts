import type { Logger } from "pino";
import {
  type DesiredState,
  environmentOf,
  type ManifestIssue,
  type Repository,
  readRepository,
  validateRepository,
} from "../manifest/index.ts";
import { type Plan, type PlanOptions, planChanges } from "../plan/index.ts";
import { type EarlyReads, type LiveState, readLiveState, startEarlyReads } from "../state/index.ts";
import type { Connections } from "./connect.ts";

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
): Promise<EarlyReads | undefined> {
  const environments = validateRepository({ ...repository, manifests: [] }, { env });
  const config = environments.ok ? environments.states[0]?.environment : undefined;
  if (!config) return undefined;
  const early = startEarlyReads((await connections.open(config)).client);
  await early.securityParameters.catch(() => undefined);
  return early;
}

/** Loads the manifests for one environment and reads its live state (and its package source's). */
export async function readContext(
  dir: string,
  env: string,
  connections: Connections,
  logger: Logger,
): Promise<PlanContext> {
  const repository = await readRepository(dir);
  const early = await startReading(repository, env, connections);
  const { state: desired, warnings } = environmentOf(repository, env);
  const target = await connections.open(desired.environment);
  const source =
    desired.packagesFrom && desired.packages.length > 0
      ? await connections.open(desired.packagesFrom)
      : undefined;
  logger.debug({ env, source: source?.name }, "reading live state");
  const live = await readLiveState(target.client, desired, { source: source?.client, early });
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
  const context = await readContext(dir, env, connections, logger);
  const plan = planChanges(context.desired, context.live, {
    ...options,
    createdAt: new Date().toISOString(),
  });
  return { ...context, plan };
}

import type { Logger } from "pino";
import { type DesiredState, loadEnvironment, type ManifestIssue } from "../manifest/index.ts";
import { type Plan, type PlanOptions, planChanges } from "../plan/index.ts";
import { type LiveState, readLiveState } from "../state/index.ts";
import type { Connections } from "./connect.ts";

export interface PlanContext {
  desired: DesiredState;
  live: LiveState;
  warnings: ManifestIssue[];
}

/** Loads the manifests for one environment and reads its live state (and its package source's). */
export async function readContext(
  dir: string,
  env: string,
  connections: Connections,
  logger: Logger,
): Promise<PlanContext> {
  const { state: desired, warnings } = await loadEnvironment(dir, env);
  const target = await connections.open(desired.environment);
  const source =
    desired.packagesFrom && desired.packages.length > 0
      ? await connections.open(desired.packagesFrom)
      : undefined;
  logger.debug({ env, source: source?.name }, "reading live state");
  const live = await readLiveState(target.client, desired, { source: source?.client });
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

import type { Logger } from "pino";
import type { EnvironmentPlan, OpenEnvironment } from "../compose/plan-environment.ts";
import { openProjectStore } from "../compose/project-store.ts";
import type { PlanOptions } from "../plan/index.ts";
import { planEnvironment, viewEnvironment } from "../release/plan.ts";
import type { SharedReads } from "../state/index.ts";
import type { Connections } from "./connect.ts";
import { manifestCacheOf } from "./manifest-cache.ts";

/** The clients of one run's connections, as the composer opens environments. */
export function clientsOf(connections: Connections): OpenEnvironment {
  return async (config) => (await connections.open(config)).client;
}

/**
 * The gated `planEnvironment` (src/release/plan.ts) as the commands call it: substituted values hidden from the output first.
 * `context.shared`: package sources' reads kept across the plans of one read-only run;
 * `context.view`: a read-only report (`drift`), where a rejected release is said, not refused.
 */
export async function planWith(
  context: {
    dir: string;
    connections: Connections;
    logger: Logger;
    shared?: SharedReads;
    managedOnly?: boolean;
    view?: boolean;
    /** Done with the instances once they are read (`egp plan`): their logouts overlap the planning. */
    closeAfterRead?: boolean;
  },
  env: string,
  options: PlanOptions,
): Promise<EnvironmentPlan> {
  return (context.view ? viewEnvironment : planEnvironment)({
    store: await openProjectStore(context.dir),
    dir: context.dir,
    env,
    options,
    open: clientsOf(context.connections),
    logger: context.logger,
    cache: manifestCacheOf(context.dir),
    ...(context.shared ? { shared: context.shared } : {}),
    ...(context.managedOnly ? { managedOnly: true } : {}),
    ...(context.closeAfterRead ? { afterRead: () => context.connections.closeSoon() } : {}),
  });
}

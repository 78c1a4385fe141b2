import type { Logger } from "pino";
import { Journal, JournalUnreadableError, readHistory as readInstalls } from "../apply/index.ts";
import { openProjectStore } from "../compose/project-store.ts";
import { environmentOf, type Repository } from "../manifest/index.ts";
import {
  driftByKind,
  type EnvironmentStatus,
  type LastInstall,
  printable,
  type StatusReport,
  statusReport,
} from "../plan/index.ts";
import type { Connections } from "./connect.ts";
import { issueLine } from "./issue-line.ts";
import { planWith } from "./plan-environment.ts";
import { stateDirOf } from "./state-dir.ts";
import { describeUserError } from "./user-errors.ts";

/*
 * Gathers `egp status`: each environment read on its own, a bounded number at once, so that one that
 * can't be read becomes a row saying why and never hides the others.
 */

export interface StatusContext {
  dir: string;
  repository: Repository;
  connections: Connections;
  logger: Logger;
  /** Manifest warnings, once each: every environment's plan loads the same manifests. */
  warn: (line: string) => void;
}

/**
 * The environment's latest install, from its history in the release store; the one place status
 * reads it. Shown whether signed or not: `egp history` says which records rollback believes.
 */
export async function lastInstall(dir: string, env: string): Promise<LastInstall | null> {
  const [entry] = await readInstalls(await openProjectStore(dir), env);
  if (!entry) return null;
  const { record } = entry;
  return {
    ...(record.release ? { release: record.release } : {}),
    package: record.package.name,
    from: record.sourceEnvironment,
    at: record.installedAt ?? record.startedAt,
    done: record.installedAt !== null,
  };
}

/** The interrupted apply `egp apply --resume` would take up, or why its journal can't be read. */
export function pendingApply(dir: string, env: string): EnvironmentStatus["pending"] {
  try {
    const pending = Journal.unfinished(stateDirOf(dir), env);
    if (!pending) return null;
    const { plan, done, startedAt } = pending.state;
    return { plan: plan.id, done: done.size, steps: plan.steps.length, startedAt };
  } catch (error) {
    if (error instanceof JournalUnreadableError) return { unreadable: printable(error.message) };
    throw error;
  }
}

/** Why an environment can't be read, on one line, as the CLI would say it on its own. */
function reasonOf(error: unknown): string {
  const known = describeUserError(error);
  if (known && known.lines.length > 0) return known.lines.join("; ");
  return printable(error instanceof Error ? error.message : String(error));
}

async function readHistory(dir: string, env: string, logger: Logger) {
  try {
    return { lastInstall: await lastInstall(dir, env), pending: pendingApply(dir, env) };
  } catch (error) {
    logger.warn({ env }, `${env}: history unreadable: ${reasonOf(error)}`);
    return { lastInstall: null, pending: null };
  }
}

export async function environmentStatus(context: StatusContext, env: string): Promise<EnvironmentStatus> {
  const { dir, connections, logger } = context;
  const history = await readHistory(dir, env, logger);
  try {
    const bare = { ...context.repository, manifests: [] };
    const config = environmentOf(bare, env).state.environment;
    const { client } = await connections.open(config);
    const { Version } = await client.metadata.version();
    const { plan, warnings } = await planWith({ dir, connections, logger }, env, {});
    for (const warning of warnings) context.warn(issueLine(warning));
    const drift = driftByKind(plan);
    const driftTotal = Object.values(drift).reduce((sum, n) => sum + n, 0);
    return { environment: env, ...history, reachable: true, version: Version, drift, driftTotal };
  } catch (error) {
    logger.debug({ env, err: error }, "environment unreadable");
    return { environment: env, ...history, reachable: false, reason: reasonOf(error) };
  }
}

/** `fn` over `items`, at most `limit` at once, results in the items' order. */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export async function readStatus(
  context: StatusContext,
  environments: readonly string[],
  parallel: number,
): Promise<StatusReport> {
  const rows = await mapBounded(environments, parallel, (env) => environmentStatus(context, env));
  return statusReport(rows, new Date().toISOString());
}

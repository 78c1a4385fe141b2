import type { Logger } from "pino";
import { Journal, JournalUnreadableError, listHistory, type ReleaseRecord } from "../apply/index.ts";
import { LoginRefusedError } from "../client/errors.ts";
import { openProjectStore } from "../compose/project-store.ts";
import { type EnvironmentConfig, environmentOf, pipelinePlaces, type Repository } from "../manifest/index.ts";
import {
  driftByKind,
  type EnvironmentStatus,
  type LastInstall,
  printable,
  type Runs,
  type StatusReport,
  statusReport,
  type Verification,
  type Wants,
  whatRuns,
} from "../plan/index.ts";
import { environmentsInOrder, verifiedAtOf } from "../release/release-list.ts";
import { type SharedReads, sharedReads } from "../state/index.ts";
import { type ReleaseStore, verifiedKey } from "../store/index.ts";
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
  /** Package sources' reads kept for the run: a source many environments promote from is read once. */
  shared?: SharedReads;
}

function lastInstallOf(record: ReleaseRecord | undefined): LastInstall | null {
  if (!record) return null;
  return {
    ...(record.release ? { release: record.release } : {}),
    package: record.package.name,
    from: record.sourceEnvironment,
    at: record.installedAt ?? record.startedAt,
    done: record.installedAt !== null,
  };
}

/** The verifications on `env` of the releases its history installed and of the one its file names. */
async function verificationsOf(
  store: ReleaseStore,
  env: string,
  history: readonly ReleaseRecord[],
  wanted: string | undefined,
): Promise<Verification[]> {
  const releases = new Set(history.flatMap((r) => (r.release ? [r.release] : [])));
  if (wanted) releases.add(wanted);
  const found = await Promise.all(
    [...releases].map(async (release) => {
      const at = verifiedAtOf(await store.getRecord(verifiedKey(release, env)), env);
      return at === undefined ? [] : [{ release, verifiedAt: at }];
    }),
  );
  return found.flat();
}

/**
 * The environment's latest install and what it runs, from its history and verifications in the
 * release store; the one place status reads them.
 */
export async function installsOf(
  dir: string,
  env: string,
  wanted?: string,
): Promise<{ lastInstall: LastInstall | null; runs: Runs | null }> {
  const store = await openProjectStore(dir);
  const history = await listHistory(store, env);
  const verifications = await verificationsOf(store, env, history, wanted);
  const entries = history.map((record) => ({
    id: record.id,
    ...(record.release ? { release: record.release } : {}),
    package: record.package.name,
    from: record.sourceEnvironment,
    installedAt: record.installedAt,
    rolledBackAt: record.rollbacks.at(-1)?.at ?? null,
  }));
  return { lastInstall: lastInstallOf(history[0]), runs: whatRuns(entries, verifications) };
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

async function readHistory(dir: string, env: string, logger: Logger, wanted: string | undefined) {
  try {
    return { ...(await installsOf(dir, env, wanted)), pending: pendingApply(dir, env) };
  } catch (error) {
    logger.warn({ env }, `${env}: history unreadable: ${reasonOf(error)}`);
    return { lastInstall: null, runs: null, pending: null };
  }
}

/** Where the environment sits in the pipeline: its file as written, what it wants as loaded where it loads. */
function placeOf(context: StatusContext, env: string, config: EnvironmentConfig | undefined) {
  const written = pipelinePlaces(context.repository).find((place) => place.name === env);
  const release = config ? config.release : written?.release;
  const packagesFrom = config ? config.packagesFrom : written?.packagesFrom;
  const wants: Wants = release ? { release } : packagesFrom ? { packagesFrom } : null;
  return { upstream: written?.upstream ?? [], wants };
}

export async function environmentStatus(context: StatusContext, env: string): Promise<EnvironmentStatus> {
  const { dir, connections, logger } = context;
  const bare = { ...context.repository, manifests: [] };
  let config: EnvironmentConfig | undefined;
  let unloadable: unknown;
  try {
    config = environmentOf(bare, env).state.environment;
  } catch (error) {
    unloadable = error;
  }
  const place = placeOf(context, env, config);
  const history = { ...place, ...(await readHistory(dir, env, logger, config?.release)) };
  try {
    if (!config) throw unloadable;
    const { client } = await connections.open(config);
    const { Version } = await client.metadata.version();
    // Status counts drift and lists no unmanaged object: it reads only the users it manages.
    const { plan, warnings } = await planWith(
      { dir, connections, logger, managedOnly: true, ...(context.shared ? { shared: context.shared } : {}) },
      env,
      {},
    );
    for (const warning of warnings) context.warn(issueLine(warning));
    const drift = driftByKind(plan);
    const driftTotal = Object.values(drift).reduce((sum, n) => sum + n, 0);
    return { environment: env, ...history, reachable: true, version: Version, drift, driftTotal };
  } catch (error) {
    logger.debug({ env, err: error }, "environment unreadable");
    const loginRefused = error instanceof LoginRefusedError;
    return {
      environment: env,
      ...history,
      reachable: false,
      reason: reasonOf(error),
      ...(loginRefused ? { loginRefused } : {}),
    };
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
  const run = { ...context, shared: context.shared ?? sharedReads() };
  const rows = await mapBounded(environments, parallel, (env) => environmentStatus(run, env));
  return statusReport(rows, new Date().toISOString(), environmentsInOrder(context.repository));
}

import { Journal, JournalUnreadableError, listHistory, type ReleaseRecord } from "../apply/index.ts";
import { LoginRefusedError } from "../client/errors.ts";
import type { Kinds } from "../compose/kinds.ts";
import type { OpenEnvironment } from "../compose/plan-environment.ts";
import { openProjectStore } from "../compose/project-store.ts";
import { DEFAULT_MAX_ACK_DAYS, readDriftAcks } from "../manifest/drift-ack.ts";
import {
  type EnvironmentConfig,
  environmentNameOf,
  environmentOf,
  type ManifestCache,
  type ManifestIssue,
  pipelinePlaces,
  type Repository,
  readRepository,
} from "../manifest/index.ts";
import { loadProject } from "../manifest/project.ts";
import {
  type EnvironmentStatus,
  type LastInstall,
  type PendingVerification,
  printable,
  type Runs,
  type StatusReport,
  statusReport,
  type Verification,
  type Wants,
  whatRuns,
} from "../plan/index.ts";
import { type SharedReads, sharedReads } from "../state/index.ts";
import { type ReleaseStore, verifiedKey } from "../store/index.ts";
import { matchAcks } from "./drift-acks.ts";
import { type Finding, type Seal, viewFindings } from "./drift-findings.ts";
import { freezeOf } from "./freeze-gate.ts";
import { viewEnvironment } from "./plan.ts";
import { environmentsInOrder, pendingOf, verifiedAtOf } from "./release-list.ts";

/*
 * Gathers `egp status`: each environment read on its own, a bounded number at once, so that one that
 * can't be read becomes a row saying why and never hides the others.
 */

export interface StatusOptions {
  /** The repository: its environments, manifests and egp.yaml. */
  dir: string;
  /** The clients of the environments (`httpConnections().open`, or the CLI's connections). */
  open: OpenEnvironment;
  /** The repository's state folder (`.egp`): where an interrupted apply's journal is. */
  stateDir: string;
  /** The environments to read, in any order (default: every file in environments/). */
  environments?: readonly string[];
  /** Environments read at once (default 10). */
  parallel?: number;
  /** The release store (default: the one egp.yaml names). */
  store?: ReleaseStore;
  /** Parsed manifests kept between runs (`.egp/cache/`); none by default. */
  cache?: ManifestCache;
  logger?: StatusLogger;
  /** Manifest warnings: every environment's plan loads the same manifests, so one may come more than once. */
  warn?: (issue: ManifestIssue) => void;
  /** Why an environment can't be read, on one line (default: the error's message). */
  reasonOf?: (error: unknown) => string;
  /** Package sources' reads kept for the run: a source many environments promote from is read once. */
  shared?: SharedReads;
  /** The kinds to load, read and plan (`createKinds`); egp's own by default. */
  kinds?: Kinds;
  /** The clock freeze windows are read by (default: now). */
  now?: () => Date;
  /** The keyed digest of sensitive values' drift hashes (`driftSealOf`), as `egp drift` has it. */
  seal?: Seal;
}

interface StatusLogger {
  debug(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

const SILENT: StatusLogger = { debug: () => undefined, warn: () => undefined };

interface StatusContext extends Omit<StatusOptions, "environments" | "parallel" | "store"> {
  repository: Repository;
  /** Opened once, when first needed: a store that can't be opened makes rows unreadable, not the report. */
  store: () => Promise<ReleaseStore>;
  shared: SharedReads;
  logger: StatusLogger;
  reasonOf: (error: unknown) => string;
  now: () => Date;
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

/** The wanted release's verification on `env` when it soaks or was found not verified. */
async function pendingVerification(
  store: ReleaseStore,
  env: string,
  release: string,
): Promise<PendingVerification | undefined> {
  const pending = pendingOf(await store.getRecord(verifiedKey(release, env)), env);
  if (!pending) return undefined;
  return pending.state === "soaking"
    ? { release, state: "soaking", until: pending.until }
    : { release, state: "not-verified", reason: pending.reason };
}

/**
 * The environment's latest install and what it runs, from its history and verifications in the
 * release store; the one place status reads them.
 */
async function installsOf(
  store: ReleaseStore,
  env: string,
  wanted?: string,
): Promise<{ lastInstall: LastInstall | null; runs: Runs | null; verification?: PendingVerification }> {
  const history = await listHistory(store, env);
  const verification = wanted ? await pendingVerification(store, env, wanted) : undefined;
  const verifications = await verificationsOf(store, env, history, wanted);
  const entries = history.map((record) => ({
    id: record.id,
    ...(record.release ? { release: record.release } : {}),
    package: record.package.name,
    from: record.sourceEnvironment,
    installedAt: record.installedAt,
    rolledBackAt: record.rollbacks.at(-1)?.at ?? null,
  }));
  return {
    lastInstall: lastInstallOf(history[0]),
    runs: whatRuns(entries, verifications),
    ...(verification ? { verification } : {}),
  };
}

/** The interrupted apply `egp apply --resume` would take up, or why its journal can't be read. */
function pendingApply(stateDir: string, env: string): EnvironmentStatus["pending"] {
  try {
    const pending = Journal.unfinished(stateDir, env);
    if (!pending) return null;
    const { plan, done, startedAt } = pending.state;
    return { plan: plan.id, done: done.size, steps: plan.steps.length, startedAt };
  } catch (error) {
    if (error instanceof JournalUnreadableError) return { unreadable: printable(error.message) };
    throw error;
  }
}

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make();
    return made;
  };
}

const messageOf = (error: unknown) => printable(error instanceof Error ? error.message : String(error));

async function readHistory(context: StatusContext, env: string, wanted: string | undefined) {
  try {
    return {
      ...(await installsOf(await context.store(), env, wanted)),
      pending: pendingApply(context.stateDir, env),
    };
  } catch (error) {
    context.logger.warn({ env }, `${env}: history unreadable: ${context.reasonOf(error)}`);
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

async function environmentStatus(context: StatusContext, env: string): Promise<EnvironmentStatus> {
  const { dir, logger } = context;
  const bare = { ...context.repository, manifests: [] };
  let config: EnvironmentConfig | undefined;
  let unloadable: unknown;
  try {
    config = environmentOf(bare, env).state.environment;
  } catch (error) {
    unloadable = error;
  }
  const place = placeOf(context, env, config);
  const freeze = config ? freezeOf(config, context.now()) : undefined;
  const history = {
    ...place,
    ...(await readHistory(context, env, config?.release)),
    ...(freeze ? { freeze } : {}),
  };
  try {
    if (!config) throw unloadable;
    const client = await context.open(config);
    const { Version } = await client.metadata.version();
    // Status counts drift and lists no unmanaged object: it reads only the users it manages.
    const view = await viewEnvironment({
      dir,
      env,
      open: context.open,
      store: await context.store(),
      logger,
      managedOnly: true,
      shared: context.shared,
      ...(context.cache ? { cache: context.cache } : {}),
      ...(context.kinds ? { kinds: context.kinds } : {}),
    });
    const { plan, warnings } = view;
    for (const warning of warnings) context.warn?.(warning);
    // The open findings `egp drift` reports (acknowledged ones left out), counted by kind.
    const open = await openFindings(
      context,
      env,
      viewFindings(view, context.seal ? { seal: context.seal } : {}),
    );
    const drift = findingsByKind(open);
    const driftTotal = open.length;
    const rejected = plan.rejectedRelease ? { rejected: plan.rejectedRelease } : {};
    return {
      environment: env,
      ...history,
      reachable: true,
      version: Version,
      drift,
      driftTotal,
      ...rejected,
    };
  } catch (error) {
    logger.debug({ env, err: error }, "environment unreadable");
    const loginRefused = error instanceof LoginRefusedError;
    return {
      environment: env,
      ...history,
      reachable: false,
      reason: context.reasonOf(error),
      ...(loginRefused ? { loginRefused } : {}),
    };
  }
}

/** The findings no acknowledgement of drift-acks/ holds for now. */
async function openFindings(context: StatusContext, env: string, findings: Finding[]): Promise<Finding[]> {
  const now = context.now();
  const maxDays = (await loadProject(context.dir)).drift?.maxAcknowledgementDays ?? DEFAULT_MAX_ACK_DAYS;
  const acks = await readDriftAcks(context.dir, { maxDays, now });
  return matchAcks(env, findings, acks, now).open;
}

/** Findings counted per kind, kinds sorted by name. */
function findingsByKind(findings: readonly Finding[]): Record<string, number> {
  const counts = new Map<string, number>();
  for (const finding of findings) counts.set(finding.kind, (counts.get(finding.kind) ?? 0) + 1);
  return Object.fromEntries([...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** `fn` over `items`, at most `limit` at once, results in the items' order. */
async function mapBounded<T, R>(
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

/** The environments of the repository at `dir`: the names of its environments/*.yaml, in file order. */
/**
 * `egp status` for the CLI and a library caller: every environment (or those named) read on its
 * own, a bounded number at once, in pipeline order; one that can't be read is a row saying why.
 */
export async function readStatus(options: StatusOptions): Promise<StatusReport> {
  const repository = await readRepository(options.dir);
  const known = repository.environments.map((file) => environmentNameOf(file.path));
  const environments = options.environments ? [...new Set(options.environments)] : known;
  const context: StatusContext = {
    ...options,
    repository,
    store: once(async () => options.store ?? openProjectStore(options.dir)),
    shared: options.shared ?? sharedReads(),
    logger: options.logger ?? SILENT,
    reasonOf: options.reasonOf ?? messageOf,
    now: options.now ?? (() => new Date()),
  };
  const rows = await mapBounded(environments, options.parallel ?? 10, (env) =>
    environmentStatus(context, env),
  );
  return statusReport(rows, new Date().toISOString(), environmentsInOrder(repository));
}

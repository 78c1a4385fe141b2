import type { Plan, PlanFreeze, RejectedRelease } from "./model.ts";
import { countsAsDrift } from "./plan-changes.ts";

/*
 * `egp status`: one row per environment. The rows are gathered by the CLI (reads, history, journal);
 * what they mean (drift per kind, what an environment runs, the pipeline's order, the exit code) is
 * decided here, without I/O.
 */

/** What was last installed on an environment, from its history. */
export interface LastInstall {
  /** The release's name, when the history records one. */
  release?: string;
  package: string;
  from: string;
  /** When the install was seen done, or asked for when it never was. */
  at: string;
  done: boolean;
}

/** What the environment file asks for: a release, or the packages of a live source. */
export type Wants = { release: string } | { packagesFrom: string } | null;

/** One install of the environment's history, as status reads it. */
export interface InstallEntry {
  id: string;
  release?: string;
  package: string;
  from: string;
  installedAt: string | null;
  /** When a rollback last installed the snapshot taken before it; null when never. */
  rolledBackAt: string | null;
}

/** A release verified on the environment (`verified/<release>/<env>` in the store). */
export interface Verification {
  release: string;
  verifiedAt: string;
}

/**
 * What the environment runs: its last verified install (a release's install once the release was
 * verified there at or after it; a live promotion's once seen done, as it records no verification),
 * or a release verified without an install (the environment already read as it).
 */
export interface Runs {
  release?: string;
  /** The package and its source environment; absent for a release verified without an install. */
  package?: string;
  from?: string;
  /** The install's id; null for a release verified without an install. */
  install: string | null;
  /** When the install was seen done, or, without one, when the release was verified. */
  at: string;
  verifiedAt: string | null;
  /** The install was rolled back (its snapshot installed again) at this time; null when not. */
  rolledBackAt: string | null;
}

function newest<T>(items: readonly T[], at: (item: T) => string): T | undefined {
  return items.reduce<T | undefined>(
    (best, item) => (best === undefined || at(item) > at(best) ? item : best),
    undefined,
  );
}

/** The environment's last verified install (see `Runs`), or null when it has none. */
export function whatRuns(
  history: readonly InstallEntry[],
  verifications: readonly Verification[],
): Runs | null {
  const verifiedAt = (release: string, after: string) =>
    verifications.find((v) => v.release === release && v.verifiedAt >= after)?.verifiedAt;
  const installs: Runs[] = history.flatMap((entry) => {
    if (entry.installedAt === null) return [];
    const verified = entry.release === undefined ? null : verifiedAt(entry.release, entry.installedAt);
    if (verified === undefined) return [];
    return [
      {
        ...(entry.release !== undefined ? { release: entry.release } : {}),
        package: entry.package,
        from: entry.from,
        install: entry.id,
        at: entry.installedAt,
        verifiedAt: verified,
        rolledBackAt: entry.rolledBackAt,
      },
    ];
  });
  // A verification no install of its release precedes: the environment already read as the release.
  const without: Runs[] = verifications
    .filter(
      (v) =>
        !history.some(
          (e) => e.release === v.release && e.installedAt !== null && e.installedAt <= v.verifiedAt,
        ),
    )
    .map((v) => ({
      release: v.release,
      install: null,
      at: v.verifiedAt,
      verifiedAt: v.verifiedAt,
      rolledBackAt: null,
    }));
  return newest([...installs, ...without], (runs) => runs.at) ?? null;
}

/**
 * The environments in pipeline order: each after those it takes packages from (`packagesFrom`) and
 * those its release must be verified on first (`requiresVerifiedOn`); ties, and environments in a
 * cycle, by name. Edges to environments not listed are left out.
 */
export function pipelineOrder(
  environments: ReadonlyArray<{ name: string; upstream: readonly string[] }>,
): string[] {
  const names = new Set(environments.map((e) => e.name));
  const waiting = new Map(
    environments.map((e) => [e.name, new Set(e.upstream.filter((u) => u !== e.name && names.has(u)))]),
  );
  const order: string[] = [];
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  while (waiting.size > 0) {
    const ready = [...waiting].filter(([, upstream]) => upstream.size === 0).map(([name]) => name);
    // A cycle: its environments follow by name, so that every one is still shown.
    const next = ready.length > 0 ? ready.sort(byName)[0] : [...waiting.keys()].sort(byName)[0];
    if (next === undefined) break;
    order.push(next);
    waiting.delete(next);
    for (const upstream of waiting.values()) upstream.delete(next);
  }
  return order;
}

/** An apply that was interrupted and can be resumed. */
export interface PendingApply {
  plan: string;
  done: number;
  steps: number;
  startedAt: string;
}

/** The wanted release's verification when it is not (yet) verified: soaking, or found not verified. */
export type PendingVerification =
  | { release: string; state: "soaking"; until: string }
  | { release: string; state: "not-verified"; reason: string };

interface Common {
  environment: string;
  /** The environments before this one in the pipeline: its `packagesFrom` and `requiresVerifiedOn`. */
  upstream?: string[];
  wants?: Wants;
  runs?: Runs | null;
  /** The wanted release's verification, when it soaks or was found not verified. */
  verification?: PendingVerification;
  lastInstall: LastInstall | null;
  /** A pending apply, or the one line saying its journal can't be read. */
  pending: PendingApply | { unreadable: string } | null;
  /** A freeze window of the environment file in force now: applies are refused until it ends. */
  freeze?: PlanFreeze;
}

export interface ReadableStatus extends Common {
  reachable: true;
  version: string;
  /** Changes that count as drift, per kind (`User`, `Package`…), kinds without drift left out. */
  drift: Record<string, number>;
  driftTotal: number;
  /** The release the environment names is rejected: its packages were not compared, the rest was. */
  rejected?: RejectedRelease;
}

export interface UnreadableStatus extends Common {
  reachable: false;
  /** Why, in one line. */
  reason: string;
  /** The instance answered, and refused the login: its credentials, not its reach, are wrong. */
  loginRefused?: boolean;
}

export type EnvironmentStatus = ReadableStatus | UnreadableStatus;

export interface StatusReport {
  createdAt: string;
  environments: EnvironmentStatus[];
  summary: { matching: number; drifted: number; unreadable: number };
}

/** The plan's drifting changes counted per kind, kinds sorted by name. */
export function driftByKind(plan: Plan): Record<string, number> {
  const counts = new Map<string, number>();
  for (const change of plan.changes.filter(countsAsDrift))
    counts.set(change.kind, (counts.get(change.kind) ?? 0) + 1);
  return Object.fromEntries([...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export function isDrifted(status: EnvironmentStatus): boolean {
  return status.reachable && status.driftTotal > 0;
}

/**
 * The rows in pipeline order, and their counts. `pipeline` is the order of every environment of the
 * repository (so that rows keep it when the environments between them are not shown); without it,
 * the rows' own `upstream` give it (`pipelineOrder`).
 */
export function statusReport(
  environments: readonly EnvironmentStatus[],
  createdAt: string,
  pipeline?: readonly string[],
): StatusReport {
  const own = pipelineOrder(environments.map((s) => ({ name: s.environment, upstream: s.upstream ?? [] })));
  const rank = (name: string) =>
    pipeline?.includes(name) ? pipeline.indexOf(name) : Number.MAX_SAFE_INTEGER;
  const order = pipeline
    ? [...own].sort((a, b) => rank(a) - rank(b) || own.indexOf(a) - own.indexOf(b))
    : own;
  const sorted = order.flatMap((name) => environments.filter((s) => s.environment === name));
  const unreadable = sorted.filter((s) => !s.reachable).length;
  const drifted = sorted.filter(isDrifted).length;
  return {
    createdAt,
    environments: sorted,
    summary: { matching: sorted.length - unreadable - drifted, drifted, unreadable },
  };
}

/** 1 when an environment can't be read (it wins), 2 when one has drifted, else 0. */
export function statusExitCode(report: StatusReport): 0 | 1 | 2 {
  if (report.summary.unreadable > 0) return 1;
  return report.summary.drifted > 0 ? 2 : 0;
}

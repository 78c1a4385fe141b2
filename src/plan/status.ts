import type { Plan } from "./model.ts";
import { countsAsDrift } from "./plan-changes.ts";

/*
 * `egp status`: one row per environment. The rows are gathered by the CLI (reads, history, journal);
 * what they mean (drift per kind, the exit code) is decided here, without I/O.
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

/** An apply that was interrupted and can be resumed. */
export interface PendingApply {
  plan: string;
  done: number;
  steps: number;
  startedAt: string;
}

interface Common {
  environment: string;
  lastInstall: LastInstall | null;
  /** A pending apply, or the one line saying its journal can't be read. */
  pending: PendingApply | { unreadable: string } | null;
}

export interface ReadableStatus extends Common {
  reachable: true;
  version: string;
  /** Changes that count as drift, per kind (`User`, `Package`…), kinds without drift left out. */
  drift: Record<string, number>;
  driftTotal: number;
}

export interface UnreadableStatus extends Common {
  reachable: false;
  /** Why, in one line. */
  reason: string;
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

/** The rows, sorted by environment name, and their counts. */
export function statusReport(environments: readonly EnvironmentStatus[], createdAt: string): StatusReport {
  const sorted = [...environments].sort((a, b) =>
    a.environment < b.environment ? -1 : a.environment > b.environment ? 1 : 0,
  );
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

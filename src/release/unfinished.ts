import type { DesiredState } from "../manifest/index.ts";
import type { Plan } from "../plan/index.ts";
import type { ReleaseStore } from "../store/index.ts";
import type { AuditRecord } from "./audit.ts";
import { readAudit } from "./audit-chain.ts";
import { auditBase, instanceOf, planSha256, writeAudit } from "./audit-trail.ts";

/*
 * An apply appends an `apply-started` record before its first write to an instance, and its result
 * names it. A run killed in between (kill -9, a lost runner) leaves the started record alone: it
 * reads "outcome unknown" until the next apply of that environment, on any machine, reads the
 * live state and appends the record that closes it. The store is all this needs, since a CI runner
 * keeps no journal.
 */

/** The sequences of the `apply-started` records that no later record names as its start. */
export function unfinishedApplies(records: readonly AuditRecord[]): Set<number> {
  const closed = new Set(records.flatMap((r) => (r.started === undefined ? [] : [r.started])));
  return new Set(
    records.filter((r) => r.action === "apply-started" && !closed.has(r.sequence)).map((r) => r.sequence),
  );
}

/** What the live state showed, in words, against the desired state the plan was made from. */
function liveState(desired: DesiredState, plan: Plan): string {
  const env = desired.environment.name;
  if (plan.changes.length > 0) return `${env} has ${plan.changes.length} change(s) left to apply`;
  return desired.release ? `${env} runs release ${desired.release.name}` : `${env} matches its manifests`;
}

/**
 * Appends a `closed` result for every apply of the environment that started and wrote none; `plan`
 * is the plan made from the live state now. A chain that does not read whole closes nothing (the
 * audit command reports it).
 */
export async function closeUnfinished(
  store: ReleaseStore,
  desired: DesiredState,
  plan: Plan,
  say: (line: string) => void,
): Promise<void> {
  const env = desired.environment.name;
  // The records alone, as the apply's chain check read them: the release, verification and
  // history records that name their audit record tell nothing about which applies are open.
  const chain = await readAudit(store, { references: false });
  if (chain.broken) return;
  const open = unfinishedApplies(chain.records);
  for (const record of chain.records) {
    if (!open.has(record.sequence) || record.environment !== env) continue;
    const state = liveState(desired, plan);
    await writeAudit(
      store,
      {
        ...auditBase("apply"),
        environment: env,
        instance: instanceOf(desired.environment),
        planSha256: planSha256(plan),
        release: record.release,
        changes: plan.changes.map((c) => ({ kind: c.kind, name: c.key, action: c.action })),
        result: "closed",
        failures: [],
        exception: null,
        reason: `the apply started at #${record.sequence} wrote no result; the live state then: ${state}`,
        started: record.sequence,
      },
      say,
    );
    say(
      `The apply of ${env} started at audit #${record.sequence} never wrote its result; recorded it closed: ${state}.`,
    );
  }
}

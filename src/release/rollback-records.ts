import { readHistory } from "../apply/history.ts";
import { acquireLock, type Lock, ReleaseError } from "../apply/index.ts";
import type { PlatformClient } from "../client/client.ts";
import { codedMessage } from "../errors/index.ts";
import type { DesiredState } from "../manifest/index.ts";
import { printable } from "../plan/index.ts";
import { distrust, type ReleaseStore } from "../store/index.ts";
import type { AuditEntry } from "./audit.ts";
import { auditBase, instanceOf, writeAudit } from "./audit-trail.ts";
import { type Notice, notifierFor } from "./notify.ts";
import {
  noteRecordRollback,
  type RecordRollback,
  type RecordSnapshot,
  readRecordSnapshots,
} from "./record-snapshot.ts";
import { planRecordRollback, type RecordRollbackPlan } from "./rollback-records-plan.ts";

/*
 * `egp rollback` of the records an apply changed (docs/records.md): the record snapshot to undo
 * (the one named, or the newest change of the environment when that is a records apply rather than
 * an install), what undoing it does now (./rollback-records-plan.ts), said line by line and asked
 * before anything is written; then one content PUT per record to restore and one DELETE per record
 * to remove, under the environment's lock. What it did, conflicts and kept records included, is
 * added to the snapshot's record in the store and to the audit trail.
 */

export interface RecordRollbackOutcome {
  records: RecordRollbackPlan | undefined;
  snapshot: RecordSnapshot;
  result: "nothing-to-do" | "planned" | "cancelled" | "complete" | "incomplete";
  /** The writes that failed, each with its error. */
  failed: string[];
  /** The lines of `restored` and `deleted` whose write failed. */
  undone?: ReadonlySet<string>;
}

/**
 * The record snapshot `egp rollback` undoes, or undefined when it undoes an install: the snapshot
 * `to` names, or, without `to`, the newest snapshot when it is newer than the newest install. It
 * must be signed by a key this run trusts, as an install record must.
 */
export async function recordSnapshotToRollBack(
  store: ReleaseStore,
  env: string,
  to: string | undefined,
): Promise<RecordSnapshot | undefined> {
  const entries = await readRecordSnapshots(store, env);
  const entry = to === undefined ? entries[0] : entries.find((candidate) => candidate.snapshot.id === to);
  if (!entry) return undefined;
  if (to === undefined) {
    const [install] = await readHistory(store, env);
    if (install && install.record.startedAt > entry.snapshot.takenAt) return undefined;
  }
  if (!entry.trust.trusted)
    throw new ReleaseError(
      "EGP_RECORD_UNTRUSTED",
      `record snapshot ${entry.snapshot.id} of ${env} in the store ${store.location} is not used: ${distrust(entry.trust)}`,
    );
  return entry.snapshot;
}

/** The plan in lines, as the rollback shows it before asking. */
export function recordRollbackLines(plan: RecordRollbackPlan): string[] {
  const { snapshot } = plan;
  return [
    `Rollback of the records plan ${snapshot.plan} changed (record snapshot ${snapshot.id}, taken ${snapshot.takenAt}):`,
    ...plan.restored.map((line) => `  restore ${line}`),
    ...plan.deleted.map((line) => `  delete ${line}`),
    ...plan.conflicts.map((line) => `  conflict ${line}`),
    ...plan.kept.map((line) => `  keep ${line}, left as it is`),
    ...plan.notRestorable.map((line) => `  not restorable ${line}`),
  ].map(printable);
}

/** The writes, each tried once the client's retries are spent; the lines of those that failed are dropped. */
async function write(client: PlatformClient, plan: RecordRollbackPlan): Promise<Written> {
  const failed: string[] = [];
  const undone = new Set<string>();
  const attempt = async (what: string, lines: readonly string[], call: () => Promise<unknown>) => {
    await call().catch((error: unknown) => {
      failed.push(`${what}: ${codedMessage(error)}`);
      for (const line of lines) undone.add(line);
    });
  };
  for (const restore of plan.restores)
    await attempt(`restore Record ${restore.record.label}`, restore.lines, () =>
      client.content.update({
        Content: {
          Id: restore.contentId,
          LevelId: restore.record.levelId,
          FieldContents: Object.fromEntries(
            restore.fields.map((field) => [
              String(field.fieldId),
              { Type: field.type, Value: field.value, FieldId: field.fieldId },
            ]),
          ),
        },
      }),
    );
  for (const removal of plan.removals)
    await attempt(`delete Record ${removal.record.label}`, removal.line ? [removal.line] : [], () =>
      client.content.remove(removal.contentId),
    );
  return { failed, undone };
}

interface Written {
  failed: string[];
  /** The lines of `restored` and `deleted` whose write failed. */
  undone: Set<string>;
}

export interface RunRecordRollbackOptions {
  env: string;
  stateDir: string;
  desired: DesiredState;
  open: (config: DesiredState["environment"]) => Promise<PlatformClient>;
  store: ReleaseStore;
  snapshot: RecordSnapshot;
  planOnly?: boolean;
  confirm?: () => Promise<boolean>;
  say: (line: string) => void;
  holder?: string;
  onLocked?: (lock: Lock) => void;
}

async function runRecordRollback(options: RunRecordRollbackOptions): Promise<RecordRollbackOutcome> {
  const { env, snapshot, say } = options;
  const none = { records: undefined, snapshot, failed: [] };
  const earlier = snapshot.rollbacks?.at(-1);
  if (earlier) {
    say(
      `Nothing to roll back: the records plan ${snapshot.plan} changed were rolled back on ${earlier.at} (record snapshot ${snapshot.id}).`,
    );
    return { ...none, result: "nothing-to-do" };
  }
  const lock = acquireLock(options.stateDir, env, options.holder ?? `egp rollback --env ${env}`);
  try {
    options.onLocked?.(lock);
    const client = await options.open(options.desired.environment);
    const records = await planRecordRollback(client, snapshot);
    for (const line of recordRollbackLines(records)) say(line);
    const writes = records.restores.length + records.removals.length;
    if (writes === 0) return { records, snapshot, failed: [], result: "nothing-to-do" };
    if (options.planOnly) return { records, snapshot, failed: [], result: "planned" };
    if (options.confirm && !(await options.confirm()))
      return { records, snapshot, failed: [], result: "cancelled" };
    const { failed, undone } = await write(client, records);
    return { records, snapshot, failed, undone, result: failed.length === 0 ? "complete" : "incomplete" };
  } finally {
    lock.release();
  }
}

function rolledBack(outcome: RecordRollbackOutcome & { records: RecordRollbackPlan }): RecordRollback {
  const { records, failed } = outcome;
  const done = (line: string) => !outcome.undone?.has(line);
  return {
    at: new Date().toISOString(),
    restored: records.restored.filter(done),
    conflicts: [...records.conflicts, ...records.notRestorable.map((line) => `not restorable: ${line}`)],
    deleted: records.deleted.filter(done),
    kept: records.kept,
    failed,
  };
}

function auditOf(desired: DesiredState, outcome: RecordRollbackOutcome, done: RecordRollback): AuditEntry {
  const { snapshot } = outcome;
  const changes = (action: string, lines: readonly string[]) =>
    lines.map((line) => ({ kind: "Record", name: line.replace(/^Record /, ""), action }));
  return {
    ...auditBase("rollback"),
    environment: desired.environment.name,
    instance: instanceOf(desired.environment),
    planSha256: null,
    release: null,
    changes: [
      ...changes("restore", done.restored),
      ...changes("delete", done.deleted),
      ...changes("conflict", done.conflicts),
      ...changes("keep", done.kept),
    ],
    result: outcome.result === "complete" ? "recorded" : "failed",
    failures: done.failed,
    exception: null,
    reason: `record snapshot ${snapshot.id} (plan ${snapshot.plan})`,
  };
}

/** The verdict in lines, and the failure of a rollback whose writes did not all succeed. */
export function recordRollbackVerdict(outcome: RecordRollbackOutcome, out?: string) {
  const { records } = outcome;
  const counts = records
    ? `${records.restored.length} field(s) restored, ${records.removals.length} record(s) deleted; ${records.conflicts.length} conflict(s) and ${records.kept.length} kept record(s) left as they are`
    : "";
  switch (outcome.result) {
    case "nothing-to-do":
      return { lines: records ? ["Nothing to write: no field or record can be rolled back."] : [] };
    case "planned":
      return {
        lines: [
          "\nPlanned only: nothing was changed.",
          ...(out ? [`A records rollback is not saved as a plan: ${printable(out)} was not written.`] : []),
        ],
      };
    case "cancelled":
      return { lines: [], failure: { message: "rollback cancelled", code: "EGP_CANCELLED" as const } };
    case "complete":
      return { lines: [`\nRollback complete: ${counts}.`] };
    case "incomplete":
      return {
        lines: [
          `\nRollback incomplete: ${outcome.failed.length} write(s) failed.`,
          ...outcome.failed.map((line) => `  ${printable(line)}`),
        ],
        failure: { message: "rollback finished with failed writes", code: "EGP_ROLLBACK_FAILED" as const },
      };
  }
}

function noticeOf(env: string, outcome: RecordRollbackOutcome): Notice {
  const what = `the records plan ${outcome.snapshot.plan} changed`;
  return outcome.result === "complete"
    ? { environment: env, event: "rolled-back", summary: `rolled back ${what}` }
    : { environment: env, event: "failed", summary: `rollback of ${what} incomplete` };
}

/** The governed rollback of a record snapshot: run, then recorded on the snapshot, audited and notified. */
export async function rollbackRecords(
  options: RunRecordRollbackOptions & { dir: string },
): Promise<RecordRollbackOutcome> {
  const outcome = await runRecordRollback(options);
  const { records } = outcome;
  if (!records || (outcome.result !== "complete" && outcome.result !== "incomplete")) return outcome;
  const done = rolledBack({ ...outcome, records });
  await noteRecordRollback(options.store, outcome.snapshot, done).catch((error: Error) =>
    options.say(`WARNING: the record snapshot could not be marked rolled back: ${error.message}`),
  );
  await writeAudit(options.store, auditOf(options.desired, outcome, done), options.say);
  await (await notifierFor(options.dir, options.say))(noticeOf(options.env, outcome));
  return outcome;
}

import { createHash } from "node:crypto";
import { z } from "zod";
import { type ApplyResult, type ExecuteOptions, executePlan } from "../apply/index.ts";
import { FieldWriteValue, type Plan, recordSteps, type Step } from "../plan/index.ts";
import { environmentKey, type ReleaseStore, type Trust, trustOf, withoutSignature } from "../store/index.ts";

/*
 * The records an apply changes have no undo on the platform, so before its first write the apply
 * keeps, in the release store beside the install history, what it is about to do to them: for
 * each record it updates, the fields it writes with the values the plan read and the values it
 * writes; for each record it creates, the fields it writes and, once the apply ended, the new
 * record's content id from the create step's output. `egp rollback` (./rollback-records.ts) reads
 * it back. Records written by a later version may have more fields: every addition is optional.
 */

const int = z.number().int();

/** A field value as the content calls take it (src/plan/kinds/record-steps.ts). */
export const WireValue = FieldWriteValue;
export type WireValue = z.infer<typeof WireValue>;

const SnapshotField = z.object({
  fieldId: int,
  type: int,
  /** The field's name, as the plan showed it. */
  name: z.string(),
  /** What the apply writes. */
  written: WireValue,
  /** An updated record's value as the plan read it; absent for a created record. */
  prior: WireValue.optional(),
});

const SnapshotRecord = z.object({
  /** The step that writes it. */
  step: z.string(),
  /** `Third Parties "Acme Hosting"`, as plans name it. */
  label: z.string(),
  application: z.string(),
  levelId: int,
  /** The level's Content API entity set. */
  entitySet: z.string(),
  /** What the apply does to the record. */
  action: z.enum(["updated", "created"]),
  /** The record's content id; for a created record, known once its create step ran. */
  contentId: int.optional(),
  fields: z.array(SnapshotField),
});
export type SnapshotRecord = z.infer<typeof SnapshotRecord>;

/** What one rollback of the snapshot did, each item in words. */
const RecordRollback = z.object({
  at: z.string(),
  restored: z.array(z.string()),
  conflicts: z.array(z.string()),
  deleted: z.array(z.string()),
  kept: z.array(z.string()),
  failed: z.array(z.string()),
});
export type RecordRollback = z.infer<typeof RecordRollback>;

export const RecordSnapshot = z.object({
  formatVersion: z.literal(1),
  /** 12 hex digits, from the environment and the plan. */
  id: z.string().regex(/^[0-9a-f]{12}$/),
  environment: z.string(),
  plan: z.string(),
  takenAt: z.string(),
  records: z.array(SnapshotRecord),
  rollbacks: z.array(RecordRollback).optional(),
});
export type RecordSnapshot = z.infer<typeof RecordSnapshot>;

export const recordSnapshotPrefix = (env: string) => `record-snapshots/${environmentKey(env)}`;
export const recordSnapshotKey = (env: string, id: string) => `${recordSnapshotPrefix(env)}/${id}`;

const snapshotId = (env: string, plan: string) =>
  createHash("sha256").update(`${env}\0${plan}`).digest("hex").slice(0, 12);

function snapshotRecord(plan: Plan, step: Step): SnapshotRecord | undefined {
  const op = step.op === "record.update" || step.op === "record.create" ? step.op : undefined;
  if (!op) return undefined;
  const parsed = recordSteps.ops["record.update"].partial({ contentId: true }).safeParse(step.input);
  // A record of a level the plan's package adds has no level id before the install: not kept.
  if (!parsed.success || parsed.data.levelId === undefined) return undefined;
  const input = { ...parsed.data, levelId: parsed.data.levelId };
  const change = plan.changes.find((candidate) => candidate.id === step.change);
  // The planner lists a change's fields in the order of its step's writes.
  const names = change?.fields.map((field) => field.field) ?? [];
  return {
    step: step.id,
    label: `${input.application} ${input.key.map((part) => JSON.stringify(part)).join(", ")}`,
    application: input.application,
    levelId: input.levelId,
    entitySet: input.entitySet,
    action: op === "record.update" ? "updated" : "created",
    ...(op === "record.update" && input.contentId !== undefined ? { contentId: input.contentId } : {}),
    fields: input.fields.map((field, at) => {
      const prior = input.prior?.find((read) => read.fieldId === field.fieldId);
      return {
        fieldId: field.fieldId,
        type: field.type,
        name: names[at] ?? `field ${field.fieldId}`,
        written: field.value,
        ...(op === "record.update" && prior ? { prior: prior.value } : {}),
      };
    }),
  };
}

/** The snapshot of the records a plan writes; undefined when it writes none. */
export function recordSnapshotOf(plan: Plan, takenAt: string): RecordSnapshot | undefined {
  const records = plan.steps.flatMap((step) => snapshotRecord(plan, step) ?? []);
  if (records.length === 0) return undefined;
  return {
    formatVersion: 1,
    id: snapshotId(plan.environment, plan.id),
    environment: plan.environment,
    plan: plan.id,
    takenAt,
    records,
  };
}

async function readSnapshot(store: ReleaseStore, key: string): Promise<RecordSnapshot | undefined> {
  const parsed = RecordSnapshot.safeParse(withoutSignature(await store.getRecord(key)));
  return parsed.success ? parsed.data : undefined;
}

/**
 * Keeps the snapshot of the records the plan writes, before the apply's first write. A resumed
 * apply of the same plan keeps the one its first run kept: that one saw the records before.
 */
export async function keepRecordSnapshot(store: ReleaseStore, plan: Plan): Promise<void> {
  const snapshot = recordSnapshotOf(plan, new Date().toISOString());
  if (!snapshot) return;
  const key = recordSnapshotKey(plan.environment, snapshot.id);
  if ((await store.getRecord(key)) !== undefined) return;
  await store.putRecord(key, snapshot);
}

/** Adds the content ids of the records the apply created, from its create steps' outputs. */
export async function noteCreatedRecords(
  store: ReleaseStore,
  plan: Plan,
  outputs: ReadonlyMap<string, Record<string, unknown>>,
): Promise<void> {
  const key = recordSnapshotKey(plan.environment, snapshotId(plan.environment, plan.id));
  const snapshot = await readSnapshot(store, key);
  if (!snapshot) return;
  let changed = false;
  const records = snapshot.records.map((record) => {
    const id = outputs.get(record.step)?.id;
    if (record.action !== "created" || record.contentId !== undefined || typeof id !== "number")
      return record;
    changed = true;
    return { ...record, contentId: id };
  });
  if (changed) await store.putRecord(key, { ...snapshot, records });
}

/** Records that the snapshot was rolled back, and what that did. */
export async function noteRecordRollback(
  store: ReleaseStore,
  snapshot: RecordSnapshot,
  rollback: RecordRollback,
): Promise<void> {
  const key = recordSnapshotKey(snapshot.environment, snapshot.id);
  await store.putRecord(key, { ...snapshot, rollbacks: [...(snapshot.rollbacks ?? []), rollback] });
}

/** One kept snapshot, and whether its signature is one this run believes. */
export interface SnapshotEntry {
  snapshot: RecordSnapshot;
  trust: Trust;
}

/** The environment's record snapshots, newest first; a record that is not one is left out. */
export async function readRecordSnapshots(store: ReleaseStore, env: string): Promise<SnapshotEntry[]> {
  const keys = await store.listRecords(recordSnapshotPrefix(env));
  const entries: SnapshotEntry[] = [];
  for (const key of keys) {
    const value = await store.getRecord(key);
    const parsed = RecordSnapshot.safeParse(withoutSignature(value));
    if (!parsed.success || parsed.data.environment !== env) continue;
    entries.push({ snapshot: parsed.data, trust: trustOf(store, key, value) });
  }
  return entries.sort((a, b) => b.snapshot.takenAt.localeCompare(a.snapshot.takenAt));
}

type Execute = (options: ExecuteOptions) => Promise<ApplyResult>;

/**
 * Runs the steps, then notes the ids of the records they created, from the run's journal. The
 * records are on the instance by then: a note that can't be made is said, and the apply goes on.
 */
export function createdRecordsNoted(
  store: ReleaseStore,
  say: (line: string) => void,
  execute: Execute = executePlan,
): Execute {
  return async (options) => {
    const result = await execute(options);
    if (!options.plan.steps.some((step) => step.op === "record.create")) return result;
    try {
      const done = options.journal.read()?.done;
      if (done) await noteCreatedRecords(store, options.plan, done);
    } catch (error) {
      say(
        `WARNING: the ids of the records this apply created are not in its record snapshot (${(error as Error).message}); a rollback keeps those records.`,
      );
    }
    return result;
  };
}

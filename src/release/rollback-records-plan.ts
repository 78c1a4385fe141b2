import type { PlatformClient } from "../client/client.ts";
import { TYPE_NAMES } from "../plan/kinds/record-values.ts";
import { type FieldDefinition, FieldType, REFERENCE_FIELD_TYPES } from "../wire/index.ts";
import type { RecordSnapshot, SnapshotRecord, WireValue } from "./record-snapshot.ts";

/*
 * What a rollback of a record snapshot does, decided from the records as they are now. A field goes
 * back to its value before the apply only where it still holds what the apply wrote: anything else
 * is someone's later edit, named as a conflict and left alone. A record the apply created is
 * deleted only when no record outside those being deleted references it now; what it references
 * itself does not keep it. Every read is paged through the Content API, one paged read per level.
 */

/** Field types whose earlier value this version writes back as it was read. */
const RESTORABLE: ReadonlySet<number> = new Set([
  FieldType.Text,
  FieldType.Numeric,
  FieldType.Date,
  FieldType.ValuesList,
  FieldType.IpAddress,
]);

export interface Restore {
  record: SnapshotRecord;
  contentId: number;
  fields: Array<{ fieldId: number; type: number; value: WireValue }>;
  /** Its lines of `restored`. */
  lines: string[];
}

export interface Removal {
  record: SnapshotRecord;
  contentId: number;
  /** Its line of `deleted`. */
  line?: string;
}

export interface RecordRollbackPlan {
  snapshot: RecordSnapshot;
  restores: Restore[];
  removals: Removal[];
  /** In words: what each write does, what conflicts, what is kept and why, what can't be restored. */
  restored: string[];
  conflicts: string[];
  deleted: string[];
  kept: string[];
  notRestorable: string[];
}

type Entity = Record<string, unknown>;

async function definitionsOf(client: PlatformClient, levelId: number) {
  return new Map((await client.metadata.fieldDefinitions(levelId)).map((field) => [field.Id, field]));
}

/** The level's records with the given fields, by content id: one paged read. */
async function recordsOf(client: PlatformClient, entitySet: string, aliases: readonly string[]) {
  const idField = `${entitySet}_Id`;
  const all = await client.contentApi.allRecords(entitySet, { select: [idField, ...new Set(aliases)] });
  return new Map(all.map((entity) => [Number(entity[idField]), entity]));
}

const listOf = (value: unknown): unknown[] =>
  value === null || value === undefined ? [] : Array.isArray(value) ? value : [value];

/** A written value as the Content API shows it: values by name, the rest as they are. */
function shown(field: FieldDefinition, value: WireValue): unknown {
  if (value === null || typeof value !== "object") return value;
  // References are named not restorable before any is compared; their ids are what was written.
  if ("references" in value)
    return value.references.map((reference) =>
      "contentId" in reference ? reference.contentId : reference.step,
    );
  // Values lists only: the other types' changes are named not restorable before any is compared.
  if (!("ValuesListIds" in value)) return value;
  const names = value.ValuesListIds.map(
    (id) => field.ValuesListValues.find((candidate) => candidate.Id === id)?.Name ?? `value ${id}`,
  );
  return value.OtherText ? [...names, value.OtherText] : names;
}

/** Whether the live value is the one written, compared as the planner compares the type. */
function holds(field: FieldDefinition, live: unknown, written: WireValue): boolean {
  switch (field.Type) {
    case FieldType.ValuesList: {
      const want = listOf(shown(field, written)).map(String);
      const have = listOf(live).map(String);
      return want.length === have.length && want.every((name) => have.includes(name));
    }
    case FieldType.Numeric:
      return (typeof live === "number" ? live : null) === written;
    case FieldType.Date: {
      const have = typeof live === "string" && live !== "" ? live.slice(0, 10) : null;
      return have === (typeof written === "string" ? written.slice(0, 10) : null);
    }
    default:
      return String(live ?? "") === String(written ?? "");
  }
}

const words = (value: unknown) => JSON.stringify(value ?? null);

/** One updated record: its fields that still hold what the apply wrote go back; the others conflict. */
function restoreOf(
  record: SnapshotRecord,
  live: Entity | undefined,
  definitions: ReadonlyMap<number, FieldDefinition>,
  plan: RecordRollbackPlan,
): void {
  const name = `Record ${record.label}`;
  if (record.contentId === undefined) return;
  if (!live) {
    plan.conflicts.push(`${name}: the record (content id ${record.contentId}) is gone; nothing restored`);
    return;
  }
  const fields: Restore["fields"] = [];
  const lines: string[] = [];
  for (const field of record.fields) {
    const definition = definitions.get(field.fieldId);
    if (!definition?.IsActive) {
      plan.conflicts.push(`${name}: "${field.name}" is no longer a field of the level; left as it is`);
      continue;
    }
    if (!RESTORABLE.has(field.type) || field.prior === undefined) {
      const type = TYPE_NAMES[field.type] ?? `type ${field.type}`;
      const article = /^[aeiou]/.test(type) ? "an" : "a";
      plan.notRestorable.push(
        `${name}: "${field.name}", ${article} ${type} field, left as the apply wrote it`,
      );
      continue;
    }
    const now = live[definition.Alias];
    const before = words(shown(definition, field.prior));
    // Put back by hand already: nothing to write, and nothing to report as someone's later edit.
    if (!holds(definition, now, field.written) && holds(definition, now, field.prior)) {
      plan.restored.push(`${name}: "${field.name}" is back to ${before} already`);
      continue;
    }
    if (!holds(definition, now, field.written)) {
      plan.conflicts.push(
        `${name}: "${field.name}" holds ${words(now)} now, not ${words(shown(definition, field.written))} as the apply wrote; left as it is`,
      );
      continue;
    }
    fields.push({ fieldId: field.fieldId, type: field.type, value: field.prior });
    lines.push(`${name}: "${field.name}" back to ${before}`);
  }
  plan.restored.push(...lines);
  if (fields.length > 0) plan.restores.push({ record, contentId: record.contentId, fields, lines });
}

interface Referrer {
  id: number;
  label: string;
}

/**
 * Who references each target now: the records of every level with a cross-reference or
 * related-records field that may point at a target's level (the field definitions say which).
 */
async function referrersOf(
  client: PlatformClient,
  targets: ReadonlyMap<number, number>,
): Promise<Map<number, Referrer[]>> {
  const found = new Map<number, Referrer[]>();
  const targetLevels = new Set(targets.values());
  for (const level of await client.metadata.levels()) {
    if (level.IsDeleted) continue;
    const fields = (await client.metadata.fieldDefinitions(level.Id)).filter(
      (field) =>
        field.IsActive &&
        REFERENCE_FIELD_TYPES.includes(field.Type) &&
        field.ReferencedLevelIds.some((id) => targetLevels.has(id)),
    );
    if (fields.length === 0) continue;
    const entities = await recordsOf(
      client,
      level.Alias,
      fields.map((field) => field.Alias),
    );
    for (const [id, entity] of entities)
      for (const field of fields)
        for (const item of listOf(entity[field.Alias])) {
          const target = typeof item === "object" && item !== null ? (item as Entity).ContentId : item;
          if (typeof target !== "number" || !targets.has(target)) continue;
          const list = found.get(target) ?? [];
          list.push({ id, label: `${level.ModuleName} record ${id} ("${field.Name}")` });
          found.set(target, list);
        }
  }
  return found;
}

/** The created records to delete: those referenced by no record that stays, found to a fixed point. */
function removable(candidates: readonly Removal[], referrers: ReadonlyMap<number, Referrer[]>) {
  let going = new Set(candidates.map((candidate) => candidate.contentId));
  for (;;) {
    const next = new Set(
      [...going].filter((id) => (referrers.get(id) ?? []).every((referrer) => going.has(referrer.id))),
    );
    if (next.size === going.size) return going;
    going = next;
  }
}

async function removalsOf(
  client: PlatformClient,
  created: readonly SnapshotRecord[],
  present: ReadonlyMap<string, ReadonlyMap<number, Entity>>,
  plan: RecordRollbackPlan,
): Promise<void> {
  const candidates: Removal[] = [];
  for (const record of created) {
    const name = `Record ${record.label}`;
    if (record.contentId === undefined)
      plan.kept.push(`${name}: its content id was not recorded (its create did not finish)`);
    else if (!present.get(record.entitySet)?.has(record.contentId))
      plan.deleted.push(`${name} (content id ${record.contentId}): already gone`);
    else candidates.push({ record, contentId: record.contentId });
  }
  if (candidates.length === 0) return;
  const targets = new Map(candidates.map((candidate) => [candidate.contentId, candidate.record.levelId]));
  const referrers = await referrersOf(client, targets);
  const going = removable(candidates, referrers);
  for (const candidate of candidates) {
    const name = `Record ${candidate.record.label} (content id ${candidate.contentId})`;
    if (going.has(candidate.contentId)) {
      const line = `${name}: created by the apply, referenced by no other record`;
      plan.removals.push({ ...candidate, line });
      plan.deleted.push(line);
      continue;
    }
    const by = (referrers.get(candidate.contentId) ?? []).filter((referrer) => !going.has(referrer.id));
    plan.kept.push(`${name}: referenced by ${by.map((referrer) => referrer.label).join(", ")}`);
  }
}

/** The rollback of a snapshot against the records as the instance has them now. */
export async function planRecordRollback(
  client: PlatformClient,
  snapshot: RecordSnapshot,
): Promise<RecordRollbackPlan> {
  const plan: RecordRollbackPlan = {
    snapshot,
    restores: [],
    removals: [],
    restored: [],
    conflicts: [],
    deleted: [],
    kept: [],
    notRestorable: [],
  };
  const present = new Map<string, Map<number, Entity>>();
  const levels = [...new Set(snapshot.records.map((record) => record.levelId))];
  for (const levelId of levels) {
    const records = snapshot.records.filter((record) => record.levelId === levelId);
    const entitySet = records[0]?.entitySet ?? "";
    const definitions = await definitionsOf(client, levelId);
    const aliases = records
      .filter((record) => record.action === "updated")
      .flatMap((record) => record.fields.map((field) => definitions.get(field.fieldId)))
      .filter((field) => field?.IsActive)
      .map((field) => field?.Alias ?? "");
    const live = await recordsOf(client, entitySet, aliases);
    present.set(entitySet, live);
    for (const record of records)
      if (record.action === "updated")
        restoreOf(record, live.get(record.contentId ?? Number.NaN), definitions, plan);
  }
  await removalsOf(
    client,
    snapshot.records.filter((record) => record.action === "created"),
    present,
    plan,
  );
  return plan;
}

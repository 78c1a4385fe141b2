import type { z } from "zod";
import type { Filter } from "../../client/odata.ts";
import type { recordSteps } from "../../plan/kinds/record-steps.ts";
import { isNumericField, resolve } from "../../plan/kinds/record-values.ts";
import { type LiveRecordField, recordDocuments } from "../../state/kinds/record.ts";
import { ApplyError } from "../errors.ts";

import type { OpContext } from "./types.ts";

/*
 * A record write the instance refused with 403 (a POST of a record that "already exists", a PUT of
 * one that "does not exist"), or a create whose answer was lost: the record is read again by its
 * key through the Content API. When exactly one record has the key and holds what the step was to
 * write, the step is done; otherwise the plan no longer describes the instance, and the step fails
 * with EGP_PLAN_STALE rather than write anything the plan did not show (a create in place of an
 * update, a second record, an update of another one).
 */

/** A step's input once its level's id is known (record-packaged.ts). */
type Input = z.output<(typeof recordSteps.ops)["record.create"]> & { levelId: number };

/** What happened to the write, as the failure's message says it. */
export type Unsettled = "create refused" | "create lost" | "update refused";

const WHY: Record<Unsettled, string> = {
  "create refused": "the instance answered the create with 403 (the record already exists)",
  "create lost": "the create's answer was lost",
  "update refused":
    "the instance answered the update with 403 (the record does not exist, or this account may not change it)",
};

const label = (key: readonly string[]) => key.map((part) => JSON.stringify(part)).join(", ");

const keyText = (value: unknown): string =>
  Array.isArray(value) ? keyText(value.length === 1 ? value[0] : undefined) : String(value ?? "").trim();

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

function stale(input: Input, why: Unsettled, finding: string): ApplyError {
  return new ApplyError(
    "EGP_PLAN_STALE",
    `the record ${label(input.key)} of "${input.application}": ${WHY[why]}, and ${finding}; the plan no longer matches the instance, and nothing it did not show was written. Plan again.`,
  );
}

async function fieldsOf(context: OpContext, levelId: number): Promise<Map<number, LiveRecordField>> {
  const definitions = await context.client.metadata.fieldDefinitions(levelId);
  return new Map(
    definitions.map((field) => [
      field.Id,
      {
        id: field.Id,
        name: field.Name,
        alias: field.Alias,
        type: field.Type,
        values: (field.ValuesListValues ?? []).map((value) => ({ id: value.Id, name: value.Name })),
      },
    ]),
  );
}

/** The entry of the manifests that the step writes, by its application and key. */
function entryOf(context: OpContext, input: Input) {
  const wanted = JSON.stringify(input.key);
  return recordDocuments(context.desired)
    .filter((doc) => same(doc.application, input.application))
    .flatMap((doc) => doc.records)
    .find((entry) => entry.ensure !== "absent" && JSON.stringify(entry.key) === wanted);
}

/** The names of the step's fields that the live record does not hold as the manifests give them. */
function differing(
  input: Input,
  fields: ReadonlyMap<number, LiveRecordField>,
  live: Readonly<Record<string, unknown>>,
  entry: ReturnType<typeof entryOf>,
): string[] {
  return input.fields.flatMap((write) => {
    const field = fields.get(write.fieldId);
    if (!field || !entry) return [field?.name ?? `field ${write.fieldId}`];
    const desired = entry.values[field.name];
    if (desired === undefined) return [field.name];
    const result = resolve(field, desired, live[field.alias]);
    return "problem" in result || !result.same ? [field.name] : [];
  });
}

/**
 * The Content API filter that finds the records with the step's key: each key field equal to the
 * key's text or to the value the step writes there (what a record it made holds), so that a lost
 * create is settled by one read, not by reading the whole level. The records found are then
 * compared exactly, as the plan compares keys.
 */
function keyFilter(input: Input, fields: ReadonlyMap<number, LiveRecordField>): Filter {
  const byAlias = new Map([...fields.values()].map((field) => [field.alias, field]));
  return {
    and: input.keyAliases.map((alias, at) => {
      const field = byAlias.get(alias);
      const key = input.key[at] ?? "";
      if (field && isNumericField(field)) return { field: alias, op: "eq" as const, value: Number(key) };
      const written = input.fields.find((write) => write.fieldId === field?.id)?.value;
      const values = new Set<string>([key]);
      if (typeof written === "string") values.add(written);
      return { or: [...values].map((value) => ({ field: alias, op: "eq" as const, value })) };
    }),
  };
}

/**
 * The id of the one record that has the step's key and holds its values. None having the key is
 * `undefined` when `none` is "retry" (a lost create that never landed: its next try writes what
 * the plan showed) and stale otherwise; several, or one holding other values, are stale.
 */
export async function settleByKey(
  context: OpContext,
  input: Input,
  why: Unsettled,
  none: "retry" | "stale",
): Promise<number | undefined> {
  const fields = await fieldsOf(context, input.levelId);
  const aliases = input.fields.flatMap((write) => fields.get(write.fieldId)?.alias ?? []);
  const idField = `${input.entitySet}_Id`;
  const all = await context.client.contentApi.allRecords(input.entitySet, {
    select: [...new Set([idField, ...input.keyAliases, ...aliases])],
    filter: keyFilter(input, fields),
  });
  const found = all.filter((record) =>
    input.keyAliases.every((alias, at) => keyText(record[alias]) === input.key[at]),
  );
  const ids = found.map((record) => Number(record[idField])).sort((a, b) => a - b);
  if (found.length === 0) {
    if (none === "retry") return undefined;
    throw stale(input, why, "no record has its key now");
  }
  if (found.length > 1)
    throw stale(input, why, `${found.length} records have its key now (content ids ${ids.join(", ")})`);
  const record = found[0] as Record<string, unknown>;
  const off = differing(input, fields, record, entryOf(context, input));
  if (off.length > 0)
    throw stale(
      input,
      why,
      `the record with its key (content id ${ids[0]}) holds other values of ${off.map((name) => JSON.stringify(name)).join(", ")}`,
    );
  return ids[0];
}

import type { z } from "zod";
import { OutcomeUnknownError } from "../../client/errors.ts";
import { recordSteps } from "../../plan/kinds/record-steps.ts";
import { recordDeleteOps } from "./record-delete.ts";
import { inputOf, type OpContext, type OpHandler } from "./types.ts";

/*
 * A record's create and update: one content POST or PUT (`core/content`) carrying the fields the
 * plan showed, by field id, values lists by their values' ids. The client retries what is safe to
 * retry as for every write. A create whose answer was lost, or that a previous run started and
 * never finished, may have made the record: it looks for the key first, so that a retry never
 * makes a second one.
 */

type CreateInput = z.output<(typeof recordSteps.ops)["record.create"]>;

function fieldContents(fields: CreateInput["fields"]) {
  return Object.fromEntries(
    fields.map((field) => [
      String(field.fieldId),
      { Type: field.type, Value: field.value, FieldId: field.fieldId },
    ]),
  );
}

const trimmed = (value: unknown): string =>
  Array.isArray(value) ? trimmed(value.length === 1 ? value[0] : undefined) : String(value ?? "").trim();

/** The one record the key names now, read through the Content API; undefined when none or several. */
async function recordWithKey(context: OpContext, input: CreateInput): Promise<number | undefined> {
  const idField = `${input.entitySet}_Id`;
  const all = await context.client.contentApi.allRecords(input.entitySet, {
    select: [idField, ...input.keyAliases],
  });
  const found = all.filter((record) =>
    input.keyAliases.every((alias, at) => trimmed(record[alias]) === input.key[at]),
  );
  return found.length === 1 ? Number(found[0]?.[idField]) : undefined;
}

const create: OpHandler = async (context: OpContext) => {
  const input = inputOf(context, "record.create", recordSteps.ops["record.create"]);
  if (context.resumed) {
    const id = await recordWithKey(context, input);
    if (id !== undefined) return { id };
  }
  try {
    const id = await context.client.content.create({
      LevelId: input.levelId,
      FieldContents: fieldContents(input.fields),
    });
    return { id };
  } catch (error) {
    if (!(error instanceof OutcomeUnknownError)) throw error;
    const id = await recordWithKey(context, input);
    if (id !== undefined) return { id };
    throw error;
  }
};

const update: OpHandler = async (context: OpContext) => {
  const input = inputOf(context, "record.update", recordSteps.ops["record.update"]);
  const id = await context.client.content.update({
    Content: { Id: input.contentId, LevelId: input.levelId, FieldContents: fieldContents(input.fields) },
  });
  return { id };
};

export const recordOps = { "record.create": create, "record.update": update, ...recordDeleteOps };

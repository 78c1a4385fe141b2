import type { z } from "zod";
import { recordSteps } from "../../plan/kinds/record-steps.ts";
import { inputOf, type OpContext, type OpHandler } from "./types.ts";

/*
 * A record's create and update: one content POST or PUT (`core/content`) carrying the fields the
 * plan showed, by field id, values lists by their values' ids. The client retries what is safe to
 * retry as for every write.
 */

type FieldWrites = z.output<(typeof recordSteps.ops)["record.create"]>["fields"];

function fieldContents(fields: FieldWrites) {
  return Object.fromEntries(
    fields.map((field) => [
      String(field.fieldId),
      { Type: field.type, Value: field.value, FieldId: field.fieldId },
    ]),
  );
}

const create: OpHandler = async (context: OpContext) => {
  const input = inputOf(context, "record.create", recordSteps.ops["record.create"]);
  const id = await context.client.content.create({
    LevelId: input.levelId,
    FieldContents: fieldContents(input.fields),
  });
  return { id };
};

const update: OpHandler = async (context: OpContext) => {
  const input = inputOf(context, "record.update", recordSteps.ops["record.update"]);
  const id = await context.client.content.update({
    Content: { Id: input.contentId, LevelId: input.levelId, FieldContents: fieldContents(input.fields) },
  });
  return { id };
};

export const recordOps = { "record.create": create, "record.update": update };

import type { z } from "zod";
import { ForbiddenError, OutcomeUnknownError } from "../../client/errors.ts";
import { recordSteps } from "../../plan/kinds/record-steps.ts";
import { attachmentIds, isAttachmentValue } from "./record-attachments.ts";
import { recordDeleteOps } from "./record-delete.ts";
import { withPackagedIds } from "./record-packaged.ts";
import { settleByKey } from "./record-recheck.ts";
import { sentValue } from "./record-refs.ts";
import { isSubformValue, subformRowIds } from "./record-subform-rows.ts";
import { inputOf, type OpContext, type OpHandler } from "./types.ts";

/*
 * A record's create and update: one content POST or PUT (`core/content`) carrying the fields the
 * plan showed, by field id, values lists by their values' ids. The client retries what is safe to
 * retry as for every write. A create whose answer was lost, or that a previous run started and
 * never finished, may have made the record: it looks for the key first, so that a retry never
 * makes a second one. A 403 (the interface's "already exists" / "does not exist") is settled by
 * reading the record again by its key (record-recheck.ts). Fields a package of the plan adds are
 * written by the ids the install gave them (record-packaged.ts).
 */

type CreateInput = z.output<(typeof recordSteps.ops)["record.create"]>;

async function fieldContents(context: OpContext, fields: CreateInput["fields"]) {
  const contents: Record<string, { Type: number; Value: unknown; FieldId: number }> = {};
  for (const field of fields) {
    const value = isAttachmentValue(field.value)
      ? await attachmentIds(context, field.value)
      : isSubformValue(field.value)
        ? await subformRowIds(context, field.value)
        : sentValue(context, field);
    contents[String(field.fieldId)] = { Type: field.type, Value: value, FieldId: field.fieldId };
  }
  return contents;
}

const create: OpHandler = async (context: OpContext) => {
  const input = await withPackagedIds(
    context,
    inputOf(context, "record.create", recordSteps.ops["record.create"]),
  );
  if (context.resumed) {
    const id = await settleByKey(context, input, "create lost", "retry");
    if (id !== undefined) return { id };
  }
  try {
    const id = await context.client.content.create({
      LevelId: input.levelId,
      FieldContents: await fieldContents(context, input.fields),
    });
    return { id };
  } catch (error) {
    if (error instanceof ForbiddenError)
      return { id: await settleByKey(context, input, "create refused", "stale") };
    if (!(error instanceof OutcomeUnknownError)) throw error;
    const id = await settleByKey(context, input, "create lost", "retry");
    if (id !== undefined) return { id };
    throw error;
  }
};

const update: OpHandler = async (context: OpContext) => {
  const input = await withPackagedIds(
    context,
    inputOf(context, "record.update", recordSteps.ops["record.update"]),
  );
  try {
    const id = await context.client.content.update({
      Content: {
        Id: input.contentId,
        LevelId: input.levelId,
        FieldContents: await fieldContents(context, input.fields),
      },
    });
    return { id };
  } catch (error) {
    if (!(error instanceof ForbiddenError)) throw error;
    return { id: await settleByKey(context, input, "update refused", "stale") };
  }
};

export const recordOps = { "record.create": create, "record.update": update, ...recordDeleteOps };

import type { z } from "zod";
import type { recordSteps } from "../../plan/kinds/record-steps.ts";
import { ApplyError } from "../errors.ts";
import type { OpContext } from "./types.ts";

/*
 * A reference field's value as the content calls take it: a cross-reference as `{ContentId,
 * LevelId}` items, related records as bare content ids. A reference to a record the same apply
 * creates names the creating step; its id is that step's output, which the executor holds, since
 * the step waits for it.
 */

/** The cross-reference field type (wire's `FieldType.CrossReference`; apply takes only wire's types). */
const CROSS_REFERENCE = 9;

type FieldWrite = z.output<(typeof recordSteps.ops)["record.create"]>["fields"][number];

function idOf(context: OpContext, step: string): number {
  const id = context.outputOf(step)?.id;
  if (typeof id === "number" && Number.isInteger(id)) return id;
  throw new ApplyError(
    "EGP_STEP_INPUT_MISSING",
    `${context.step.id}: references the record ${step} creates, which has no id yet: that step has not run`,
  );
}

/** The field's value as it is sent: references resolved to content ids, any other value as planned. */
export function sentValue(context: OpContext, field: FieldWrite): unknown {
  const { value } = field;
  if (value === null || typeof value !== "object" || !("references" in value)) return value;
  const items = value.references.map((reference) => ({
    ContentId: "step" in reference ? idOf(context, reference.step) : reference.contentId,
    LevelId: reference.levelId,
  }));
  return field.type === CROSS_REFERENCE ? items : items.map((item) => item.ContentId);
}

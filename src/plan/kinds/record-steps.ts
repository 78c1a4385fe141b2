import { z } from "zod";
import { RecordDelete } from "./record-delete-steps.ts";

/*
 * The inputs of a record's steps, shared by the planner, the plan file check and
 * src/apply/ops/record.ts: each field by its field id and type, its value as the content REST calls
 * take it (a values list as its values' ids), so that apply sends what the plan showed.
 */

const int = z.number().int();

/** One managed field's new value: `null` clears it. */
const FieldWrite = z.object({
  fieldId: int,
  type: int,
  value: z.union([
    z.string(),
    z.number(),
    z.null(),
    z.object({ ValuesListIds: z.array(int), OtherText: z.string().nullable() }),
  ]),
});

const Target = z.object({
  application: z.string(),
  /** The record's key values, in the document's `key` order: how messages name it. */
  key: z.array(z.string()),
  levelId: int,
  fields: z.array(FieldWrite),
  /**
   * Where a create whose answer was lost looks for the record it may have made: the level's
   * Content API entity set and the key fields' aliases, in `key` order.
   */
  entitySet: z.string(),
  keyAliases: z.array(z.string()),
});

/** The Record kind: its name in plans, and its step ops with the schema of each op's input. */
export const recordSteps = {
  kind: "Record",
  ops: {
    "record.create": Target,
    "record.update": Target.extend({ contentId: int }),
    "record.delete": RecordDelete,
  },
  actions: {
    create: ["record.create"],
    update: ["record.update"],
    delete: ["record.delete"],
  },
} as const;

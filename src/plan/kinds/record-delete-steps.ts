import { z } from "zod";

/*
 * The input of a record's delete step (record-steps.ts lists it among the kind's ops), shared by the
 * planner, the plan file check and src/apply/ops/record-delete.ts.
 */

const int = z.number().int();

export const RecordDelete = z.object({
  application: z.string(),
  /** The record's key values, in the document's `key` order: how messages name it. */
  key: z.array(z.string()),
  levelId: int,
  contentId: int,
  /** What asked for the delete: an entry's `ensure: absent`, or the document's `prune: delete`. */
  reason: z.enum(["absent", "prune"]),
});

import type { z } from "zod";
import * as wire from "../../wire/index.ts";

/*
 * The interface's shapes (src/wire/content.ts), loosened: the seed shows the fields but not that
 * they are all, so whatever else an instance sends passes through.
 */

export const WorkflowTransition = wire.WorkflowTransition.loose();
export type WorkflowTransition = z.infer<typeof WorkflowTransition>;

export const WorkflowActionResult = wire.WorkflowActionResult.extend({
  Actions: WorkflowTransition.array(),
}).loose();
export type WorkflowActionResult = z.infer<typeof WorkflowActionResult>;

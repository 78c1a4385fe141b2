import { z } from "zod";

export const WorkflowTransition = z.looseObject({
  WorkflowTransitionId: z.string(),
  WorkflowTransitionName: z.string(),
  CompletionCode: z.number().int(),
});
export type WorkflowTransition = z.infer<typeof WorkflowTransition>;

export const WorkflowActionResult = z.looseObject({
  WorkflowNodeId: z.string(),
  WorkflowNodeName: z.string(),
  /** Values not shown by the seed. */
  JobStatus: z.string(),
  Actions: z.array(WorkflowTransition),
});
export type WorkflowActionResult = z.infer<typeof WorkflowActionResult>;

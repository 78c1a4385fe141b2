import type { WorkflowActionResult } from "../../wire/index.ts";
import { isAdministrator } from "../sessions.ts";
import type { Store } from "../store.ts";
import { type ContentData, type StoredRecord, workflowOf } from "./model.ts";

/*
 * Workflow jobs. A level may have a workflow (nodes joined by transitions); each record of that
 * level has a job that sits at one node. The seed has no call that moves a job, so jobs move only
 * in seeds; a new record starts at its workflow's start node. The actions a user sees are the
 * node's transitions, minus those limited to roles the user does not hold, as the user interface
 * shows them.
 */

/** The job a new record of the level starts, or null when the level has no workflow. */
export function startJob(content: ContentData, levelId: number): StoredRecord["Workflow"] {
  const workflow = workflowOf(content, levelId);
  const node = workflow?.Nodes.find((n) => n.Id === workflow.StartNodeId);
  return node ? { NodeId: node.Id, JobStatus: node.JobStatus } : null;
}

/** The workflow action result for the user, or undefined when the record has no job. */
export function workflowActions(
  store: Store,
  content: ContentData,
  record: StoredRecord,
  userId: number,
): WorkflowActionResult | undefined {
  const job = record.Workflow;
  const node = job ? workflowOf(content, record.LevelId)?.Nodes.find((n) => n.Id === job.NodeId) : undefined;
  if (!job || !node) return undefined;
  const user = store.user(userId);
  const roles = new Set(user?.roles ?? []);
  const admin = isAdministrator(user);
  const visible = node.Transitions.filter(
    (t) => admin || t.RoleIds.length === 0 || t.RoleIds.some((role) => roles.has(role)),
  );
  return {
    WorkflowNodeId: node.Id,
    WorkflowNodeName: node.Name,
    JobStatus: job.JobStatus,
    Actions: visible.map((t) => ({
      WorkflowTransitionId: t.Id,
      WorkflowTransitionName: t.Name,
      CompletionCode: t.CompletionCode,
    })),
  };
}

import type { WorkflowActionResult } from "../../wire/index.ts";
import { isAdministrator } from "../sessions.ts";
import type { Store } from "../store.ts";
import {
  type ContentData,
  type StoredRecord,
  type WorkflowNodeRecord,
  type WorkflowTransitionRecord,
  workflowOf,
} from "./model.ts";

/*
 * Workflow jobs. A level may have a workflow (nodes joined by transitions); each record of that
 * level has a job that sits at one node. The seed has no call that moves a job, so jobs move only
 * in seeds and by the workflow action POST that real instances serve; a new record starts at its
 * workflow's start node. The actions a user sees are the
 * node's transitions, minus those limited to roles the user does not hold, as the user interface
 * shows them.
 */

/** The job a new record of the level starts, or null when the level has no workflow. */
export function startJob(content: ContentData, levelId: number): StoredRecord["Workflow"] {
  const workflow = workflowOf(content, levelId);
  const node = workflow?.Nodes.find((n) => n.Id === workflow.StartNodeId);
  return node ? { NodeId: node.Id, JobStatus: node.JobStatus } : null;
}

/** The node's transitions the user could see: all for administrators, else those their roles open. */
function visibleTransitions(
  store: Store,
  node: WorkflowNodeRecord,
  userId: number,
): WorkflowTransitionRecord[] {
  const user = store.user(userId);
  const roles = new Set(user?.roles ?? []);
  const admin = isAdministrator(user);
  return node.Transitions.filter(
    (t) => admin || t.RoleIds.length === 0 || t.RoleIds.some((role) => roles.has(role)),
  );
}

/** The record's job and the node it sits at, or undefined when it has none. */
export function jobNode(content: ContentData, record: StoredRecord): WorkflowNodeRecord | undefined {
  const job = record.Workflow;
  return job ? workflowOf(content, record.LevelId)?.Nodes.find((n) => n.Id === job.NodeId) : undefined;
}

/**
 * Takes the transition of `completionCode` that the user could see at the record's node, moving its
 * job to the transition's target; undefined when there is no such transition.
 */
export function takeTransition(
  store: Store,
  content: ContentData,
  record: StoredRecord,
  userId: number,
  completionCode: number,
): WorkflowNodeRecord | undefined {
  const node = jobNode(content, record);
  const transition = node
    ? visibleTransitions(store, node, userId).find((t) => t.CompletionCode === completionCode)
    : undefined;
  const target = transition
    ? workflowOf(content, record.LevelId)?.Nodes.find((n) => n.Id === transition.ToNodeId)
    : undefined;
  if (!target) return undefined;
  record.Workflow = { NodeId: target.Id, JobStatus: target.JobStatus };
  store.changed();
  return target;
}

/** The workflow action result for the user, or undefined when the record has no job. */
export function workflowActions(
  store: Store,
  content: ContentData,
  record: StoredRecord,
  userId: number,
): WorkflowActionResult | undefined {
  const job = record.Workflow;
  const node = jobNode(content, record);
  if (!job || !node) return undefined;
  return {
    WorkflowNodeId: node.Id,
    WorkflowNodeName: node.Name,
    JobStatus: job.JobStatus,
    Actions: visibleTransitions(store, node, userId).map((t) => ({
      WorkflowTransitionId: t.Id,
      WorkflowTransitionName: t.Name,
      CompletionCode: t.CompletionCode,
    })),
  };
}

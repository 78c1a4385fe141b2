import { z } from "zod";
import type { Envelope } from "../../wire/index.ts";
import { bind } from "../bind.ts";
import { contentOf, recordOf } from "../content/model.ts";
import { requireAccess, sessionUser } from "../content/permissions.ts";
import { jobNode, takeTransition, workflowActions } from "../content/workflow.ts";
import { ok } from "../envelope.ts";
import { badRequest, HttpFailure, message, notFound } from "../failure.ts";
import { pathId } from "../path-id.ts";
import type { RouteContext, Routes } from "../router.ts";

/*
 * The workflow action read (`core/system/WorkflowAction/<content_id>`, also under `/api/core/`):
 * the record's node, job status and the transitions the caller could see. A caller without read
 * permission on the record gets 403; an unknown record, or one without a workflow job, 404.
 * The POST (real instances', beyond the description) moves the job.
 */

function noJob(id: number): HttpFailure {
  return new HttpFailure(
    404,
    message("WorkflowJobNotFound", `Content ${id} has no workflow job: its level has no workflow.`, {
      erroredValue: id,
    }),
  );
}

function actions(ctx: RouteContext): Envelope {
  const id = pathId(ctx.params, "contentId");
  const content = contentOf(ctx.store);
  const record = recordOf(content, id);
  if (!record) throw notFound("Content", id);
  requireAccess(ctx.store, ctx.session, record);
  const result = workflowActions(ctx.store, content, record, sessionUser(ctx.session));
  if (!result) throw noJob(id);
  return ok(result);
}

const WorkflowActionRequest = z.object({
  ContentId: z.number().int().positive(),
  CompletionCode: z.number().int(),
  WorkflowNodeId: z.string().min(1),
});

/**
 * The workflow action POST of real instances: takes the action of `CompletionCode` at the node the
 * caller read (`WorkflowNodeId`), and answers the job's new node as the read would.
 */
function act(ctx: RouteContext): Envelope {
  const request = bind(WorkflowActionRequest, ctx.body, "workflow action");
  const content = contentOf(ctx.store);
  const record = recordOf(content, request.ContentId);
  if (!record) throw notFound("Content", request.ContentId);
  requireAccess(ctx.store, ctx.session, record);
  const node = jobNode(content, record);
  if (!node) throw noJob(record.Id);
  if (node.Id !== request.WorkflowNodeId) {
    throw badRequest(
      "WorkflowNodeMismatch",
      `Content ${record.Id}'s job is at node ${node.Id} (${node.Name}), not ${request.WorkflowNodeId}; read its actions again.`,
      request.WorkflowNodeId,
    );
  }
  const userId = sessionUser(ctx.session);
  if (!takeTransition(ctx.store, content, record, userId, request.CompletionCode)) {
    throw badRequest(
      "InvalidCompletionCode",
      `Node ${node.Id} (${node.Name}) offers the session's user no action with completion code ${request.CompletionCode}.`,
      request.CompletionCode,
    );
  }
  return ok(workflowActions(ctx.store, content, record, userId));
}

export function registerWorkflow(routes: Routes): void {
  routes.read("/core/system/WorkflowAction/:contentId", actions, { family: "api-core" });
  routes.post("/core/system/WorkflowAction", act, { family: "api-core", integration: true });
}

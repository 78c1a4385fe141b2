import type { Envelope } from "../../wire/index.ts";
import { contentOf, recordOf } from "../content/model.ts";
import { requireAccess, sessionUser } from "../content/permissions.ts";
import { workflowActions } from "../content/workflow.ts";
import { ok } from "../envelope.ts";
import { HttpFailure, message, notFound } from "../failure.ts";
import { pathId } from "../path-id.ts";
import type { RouteContext, Routes } from "../router.ts";

/*
 * The workflow action read (`core/system/WorkflowAction/<content_id>`, also under `/api/core/`):
 * the record's node, job status and the transitions the caller could see. A caller without read
 * permission on the record gets 403; an unknown record, or one without a workflow job, 404.
 */

function actions(ctx: RouteContext): Envelope {
  const id = pathId(ctx.params, "contentId");
  const content = contentOf(ctx.store);
  const record = recordOf(content, id);
  if (!record) throw notFound("Content", id);
  requireAccess(ctx.store, ctx.session, record);
  const result = workflowActions(ctx.store, content, record, sessionUser(ctx.session));
  if (!result) {
    throw new HttpFailure(
      404,
      message("WorkflowJobNotFound", `Content ${id} has no workflow job: its level has no workflow.`, {
        erroredValue: id,
      }),
    );
  }
  return ok(result);
}

export function registerWorkflow(routes: Routes): void {
  routes.read("/core/system/WorkflowAction/:contentId", actions, { family: "api-core" });
}

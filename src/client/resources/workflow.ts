import { idOf } from "../args.ts";
import type { Caller } from "../caller.ts";
import { one } from "../envelope.ts";
import { apiCoreRoute } from "../route.ts";
import { WorkflowActionResult } from "../schemas/workflow.ts";

/*
 * The workflow action read. The seed lists it as a GET that also carries the override header and
 * a JSON content type, under the `/api/core/` prefix; it is sent exactly so.
 */
export function workflowResource(caller: Caller) {
  return {
    /** The workflow actions the session's user could see on the record. */
    async actions(contentId: number) {
      return caller.call({
        method: "GET",
        override: true,
        route: apiCoreRoute`/core/system/WorkflowAction/${idOf("contentId", contentId)}`,
        decode: one(WorkflowActionResult),
      });
    },
  };
}

export type WorkflowResource = ReturnType<typeof workflowResource>;

import type { DesiredState } from "../../manifest/index.ts";
import { ApplyErrorCode } from "../error-codes.ts";
import type { OpContext } from "./types.ts";

/** A delete step that neither --allow-delete nor the prune policy asked for: never run. */
export class DeleteRefusedError extends Error {
  readonly code = ApplyErrorCode.DeleteRefused;
  constructor(message: string) {
    super(message);
    this.name = "DeleteRefusedError";
  }
}

/**
 * Deletes are opt-in (DESIGN §3). The planner only plans a delete when the plan allows it; this
 * check at the point of writing keeps a plan that says otherwise (a journal or a file edited by
 * hand) from deleting anything.
 */
export function assertDeleteAllowed(
  context: OpContext,
  what: string,
  policy: keyof DesiredState["prune"],
): void {
  if (context.allowDelete || context.desired.prune[policy] === "delete") return;
  throw new DeleteRefusedError(
    `refusing to delete ${what}: the plan was made without --allow-delete, and the prune policy does not delete ${policy}`,
  );
}

import { EgpError } from "../../errors/index.ts";
import type { PrunablePlural } from "../../manifest/index.ts";
import { globMatcher } from "../../plan/index.ts";
import type { OpContext } from "./types.ts";

/** A delete step that neither `ensure: absent`, --allow-delete nor the prune policy asked for: never run. */
export class DeleteRefusedError extends EgpError {
  constructor(message: string) {
    super("EGP_DELETE_REFUSED", message);
    this.name = "DeleteRefusedError";
  }
}

/** The object a delete step removes: its kind and key, and the PrunePolicy field that may prune it. */
export interface DeleteSubject {
  kind: string;
  key: string;
  policy: PrunablePlural;
  /** `user jdoe`, for the message. */
  what: string;
}

/**
 * Deletes are deliberate (DESIGN §3): a document with `ensure: absent` for that object, or the
 * prune policy (minus its `exclude`), or --allow-delete (minus `exclude`). The planner plans no
 * other delete; this check at the point of writing keeps a plan that says otherwise (a journal or a
 * file edited by hand) from deleting anything.
 */
export function assertDeleteAllowed(context: OpContext, subject: DeleteSubject): void {
  const { desired } = context;
  const key = subject.key.toLowerCase();
  if (desired.absent.some((a) => a.kind === subject.kind && a.key === key)) return;
  const excluded = globMatcher(desired.prune.exclude[subject.policy])(subject.key);
  if (excluded)
    throw new DeleteRefusedError(
      `refusing to delete ${subject.what}: the prune policy's exclude names it, and no manifest says ensure: absent for it`,
    );
  if (context.allowDelete || desired.prune[subject.policy] === "delete") return;
  throw new DeleteRefusedError(
    `refusing to delete ${subject.what}: the plan was made without --allow-delete, and the prune policy does not delete ${subject.policy}`,
  );
}

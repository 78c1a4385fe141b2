import type { z } from "zod";
import { NotFoundError } from "../../client/errors.ts";
import { recordSteps } from "../../plan/kinds/record-steps.ts";
import { recordDocuments } from "../../state/kinds/record.ts";
import { DeleteRefusedError } from "./delete-guard.ts";
import { inputOf, type OpContext, type OpHandler } from "./types.ts";

/*
 * A record's delete: the content DELETE of the interface (`core/content/<id>`). A record that is
 * already gone (404: a retry after a lost answer, or someone was first) is done: what the plan
 * asked for holds.
 */

type DeleteInput = z.output<(typeof recordSteps.ops)["record.delete"]>;

const label = (key: readonly string[]) => key.map((part) => JSON.stringify(part)).join(", ");
const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * Deletes are deliberate: the manifests must still ask for this one (an `ensure: absent` entry with
 * its key, or `prune: delete` on its document), so that a plan or journal edited by hand deletes nothing.
 */
function assertAsked(context: OpContext, input: DeleteInput): void {
  const documents = recordDocuments(context.desired).filter((doc) =>
    same(doc.application, input.application),
  );
  const wanted = (key: readonly string[]) => JSON.stringify(key) === JSON.stringify(input.key);
  const asked =
    input.reason === "prune"
      ? documents.some((doc) => doc.prune === "delete")
      : documents.some((doc) => doc.records.some((entry) => entry.ensure === "absent" && wanted(entry.key)));
  if (asked) return;
  const why =
    input.reason === "prune"
      ? "no Record document of it says prune: delete"
      : "no entry with its key says ensure: absent";
  throw new DeleteRefusedError(
    `refusing to delete the record ${label(input.key)} of "${input.application}": ${why}`,
  );
}

const remove: OpHandler = async (context: OpContext) => {
  const input = inputOf(context, "record.delete", recordSteps.ops["record.delete"]);
  assertAsked(context, input);
  try {
    await context.client.content.remove(input.contentId);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    return { id: input.contentId, alreadyGone: true };
  }
  return { id: input.contentId };
};

export const recordDeleteOps = { "record.delete": remove };

import type { ReleaseStore } from "../store/store.ts";
import { type AuditRecord, appendAudit } from "./audit.ts";
import { type AuditBreak, breakLine, readAudit } from "./audit-chain.ts";
import { auditBase } from "./audit-trail.ts";

/*
 * `egp audit acknowledge-break`: a person who has looked into a break records that they did, and
 * why the trail may go on. The record is signed and chained like any other, names every open break
 * by its key, and takes a sequence past every number the chain has had; `egp audit` still lists
 * each break, as acknowledged, and the changes that refuse a broken chain go ahead again.
 */

export async function acknowledgeBreak(
  store: ReleaseStore,
  reason: string,
): Promise<{ record?: AuditRecord; breaks: AuditBreak[] }> {
  const chain = await readAudit(store);
  const open = chain.breaks.filter((b) => b.acknowledgedBy === undefined);
  if (open.length === 0) return { breaks: [] };
  const record = await appendAudit(
    store,
    {
      ...auditBase("acknowledge-break"),
      environment: null,
      instance: null,
      planSha256: null,
      release: null,
      changes: [],
      result: "recorded",
      failures: open.map(breakLine),
      exception: null,
      reason,
      acknowledges: open.map((b) => b.key),
    },
    { after: chain.highest },
  );
  return { record, breaks: open };
}

import { openProjectStore } from "../compose/project-store.ts";
import { readReleaseFile } from "../manifest/index.ts";
import type { ReleaseStore } from "../store/index.ts";
import { releaseKey } from "../store/keys.ts";
import { assertCanSign } from "../store/signing.ts";
import { assertAuditWhole, readAudit } from "./audit-chain.ts";
import { auditBase, writeAudit } from "./audit-trail.ts";
import { notifierFor } from "./notify.ts";
import { type ReadRejection, recordRejection } from "./rejections.ts";
import { ReleaseGateError } from "./release-gate.ts";

async function rejectAudited(store: ReleaseStore, name: string): Promise<boolean> {
  const { records } = await readAudit(store);
  return records.some((r) => r.action === "reject" && r.release?.name === name);
}

/**
 * `egp release reject`: the release must be one egp built (its file or its store record); the
 * rejection is recorded once, audited and notified. The first rejection of a release stands.
 */
export async function rejectRelease(input: {
  dir: string;
  name: string;
  reason: string;
  /** Where a record or a notification that could not be made is said (default: nowhere). */
  say?: (line: string) => void;
}): Promise<{ rejection: ReadRejection; already: boolean }> {
  const { dir, name, reason } = input;
  const say = input.say ?? (() => undefined);
  const store = await openProjectStore(dir);
  assertCanSign(store);
  await assertAuditWhole(store);
  const file = await readReleaseFile(dir, name).catch(() => undefined);
  if (!file && (await store.getRecord(releaseKey(name))) === undefined)
    throw new ReleaseGateError(
      "EGP_RELEASE_MISMATCH",
      `no release ${name}: neither releases/${name}.yaml nor the store ${store.location} has it`,
    );
  const base = auditBase("reject");
  const result = await recordRejection(store, {
    name,
    reason,
    at: base.at,
    actor: base.actor,
    runUrl: base.runUrl,
  });
  // The rejection is written first and its audit record after: a run killed between the two leaves
  // a rejection the trail does not name, which the next reject of the release completes.
  if (result.already && (await rejectAudited(store, name))) return result;
  await writeAudit(
    store,
    {
      ...base,
      environment: null,
      instance: null,
      planSha256: null,
      release: { name, packages: (file?.packages ?? []).map((p) => ({ name: p.name, sha256: p.sha256 })) },
      changes: [],
      result: "recorded",
      failures: [],
      exception: null,
      reason: result.already ? result.rejection.reason : reason,
    },
    say,
  );
  if (result.already) return result;
  const notify = await notifierFor(dir, say);
  await notify({
    event: "rejected",
    release: name,
    summary: reason,
  });
  return result;
}

import { openProjectStore } from "../compose/project-store.ts";
import { readReleaseFile } from "../manifest/index.ts";
import { releaseKey } from "../store/keys.ts";
import { assertCanSign } from "../store/signing.ts";
import { auditBase, writeAudit } from "./audit-trail.ts";
import { notifierFor } from "./notify.ts";
import { type ReadRejection, recordRejection } from "./rejections.ts";
import { ReleaseGateError } from "./release-gate.ts";

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
  if (result.already) return result;
  await writeAudit(
    store,
    {
      ...base,
      environment: null,
      instance: null,
      planSha256: null,
      release: file
        ? { name, packages: file.packages.map((p) => ({ name: p.name, sha256: p.sha256 })) }
        : null,
      changes: [],
      result: "recorded",
      failures: [],
      exception: null,
      reason,
    },
    say,
  );
  const notify = await notifierFor(dir, say);
  await notify({
    event: "rejected",
    release: name,
    summary: reason,
  });
  return result;
}

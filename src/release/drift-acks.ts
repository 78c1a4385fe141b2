import { ackEnds, type DriftAck } from "../manifest/drift-ack.ts";
import { type Finding, SEALED_UNAVAILABLE } from "./drift-findings.ts";
import type { AcknowledgedFinding, DriftReport, UnusedAcknowledgement } from "./drift-render.ts";

/*
 * Acknowledgements matched to one run's findings: a finding is acknowledged while an
 * acknowledgement of its environment names its fingerprint and the value hash it has now, and has
 * not ended. Otherwise it is open, and says why it came back.
 */

export const RESURFACED = {
  changed: "acknowledged value changed",
  expired: "expired",
} as const;

function unused(ack: DriftAck, why: string): UnusedAcknowledgement {
  return { file: ack.file, fingerprint: ack.fingerprint, why };
}

/** Why `ack` does not hold for `finding` at `now`; undefined when it does. */
function whyNot(ack: DriftAck, finding: Finding, now: Date): string | undefined {
  if (now.getTime() >= ackEnds(ack.until)) return `${RESURFACED.expired} (until ${ack.until})`;
  if (valueNotCompared(ack, finding)) return undefined;
  if (ack.valueHash !== finding.valueHash) return RESURFACED.changed;
  return undefined;
}

/**
 * Why the value of a sensitive finding can't be compared: one side was hashed without the shared
 * key. The acknowledgement then holds on its fingerprint alone, and says so.
 */
function valueNotCompared(ack: DriftAck, finding: Finding): string | undefined {
  if (finding.valueHash === SEALED_UNAVAILABLE)
    return "value not compared: this run has no EGP_SIGNING_KEY to hash a sensitive value with";
  if (ack.valueHash === SEALED_UNAVAILABLE)
    return "value not compared: the acknowledgement was written without EGP_SIGNING_KEY";
  return undefined;
}

/**
 * The run's report: open findings (one whose acknowledgement no longer holds says why), the
 * acknowledged ones with their acknowledgement, and the environment's acknowledgements that
 * matched nothing. Acknowledgements of other environments are not this run's.
 */
export function matchAcks(
  environment: string,
  findings: readonly Finding[],
  acks: readonly DriftAck[],
  now: Date,
): DriftReport {
  const mine = acks.filter((ack) => ack.environment === environment);
  const byFingerprint = new Map(findings.map((f) => [f.fingerprint, f]));
  const acknowledged: AcknowledgedFinding[] = [];
  const resurfaced = new Map<string, string>();
  const unusedAcks: UnusedAcknowledgement[] = [];
  for (const ack of mine) {
    const finding = byFingerprint.get(ack.fingerprint);
    if (!finding) {
      unusedAcks.push(unused(ack, `no finding of ${environment} has this fingerprint`));
      continue;
    }
    const why = whyNot(ack, finding, now);
    if (why) {
      // A later acknowledgement of the same finding that holds wins over one that does not.
      if (!acknowledged.some((a) => a.fingerprint === finding.fingerprint))
        resurfaced.set(finding.fingerprint, why);
      unusedAcks.push(unused(ack, why));
      continue;
    }
    resurfaced.delete(finding.fingerprint);
    if (acknowledged.some((a) => a.fingerprint === finding.fingerprint)) continue;
    const note = valueNotCompared(ack, finding);
    acknowledged.push({
      ...finding,
      acknowledgement: {
        file: ack.file,
        reason: ack.reason,
        until: ack.until,
        by: ack.by,
        ...(note ? { note } : {}),
      },
    });
  }
  const done = new Set(acknowledged.map((a) => a.fingerprint));
  const open = findings
    .filter((f) => !done.has(f.fingerprint))
    .map((f) => {
      const why = resurfaced.get(f.fingerprint);
      return why ? { ...f, resurfaced: why } : f;
    });
  return { environment, open, acknowledged, unused: unusedAcks };
}

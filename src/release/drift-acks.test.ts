import { describe, expect, it } from "vitest";
import type { DriftAck } from "../manifest/drift-ack.ts";
import { generateSigningKey } from "../store/signing.ts";
import { matchAcks } from "./drift-acks.ts";
import { sealedHashOf } from "./drift-finding.ts";
import { type Finding, fingerprintOf, REMEDIES, SEALED_UNAVAILABLE, valueHashOf } from "./drift-findings.ts";
import { driftSealOf } from "./drift-seal.ts";

function finding(part: string, value: unknown): Finding {
  return {
    fingerprint: fingerprintOf("prod", "User", "anguyen", part),
    environment: "prod",
    kind: "User",
    object: "anguyen",
    label: 'User "anguyen"',
    part,
    partLabel: part,
    severity: "medium",
    valueHash: valueHashOf(value),
    differsFrom: "manifests/users.yaml:1",
    remedy: REMEDIES.plan,
  };
}

function ackOf(target: Finding, overrides: Partial<DriftAck> = {}): DriftAck {
  return {
    name: target.fingerprint,
    file: `drift-acks/prod-${target.fingerprint}.yaml`,
    environment: "prod",
    fingerprint: target.fingerprint,
    valueHash: target.valueHash,
    reason: "known",
    until: "2027-01-31",
    by: "dana",
    ...overrides,
  };
}

const NOW = new Date("2027-01-15T12:00:00Z");

describe("matchAcks", () => {
  it("keeps a fingerprint while the value changes, and the value hash follows the value", () => {
    expect(finding("Title", "a").fingerprint).toBe(finding("Title", "b").fingerprint);
    expect(finding("Title", "a").valueHash).not.toBe(finding("Title", "b").valueHash);
    expect(finding("Title", "a").fingerprint).not.toBe(finding("Department", "a").fingerprint);
  });

  it("lists an acknowledged finding apart and leaves the others open", () => {
    const [title, department] = [finding("Title", "a"), finding("Department", "b")];
    const report = matchAcks("prod", [title, department], [ackOf(title)], NOW);
    expect(report.open).toEqual([department]);
    expect(report.acknowledged.map((f) => f.fingerprint)).toEqual([title.fingerprint]);
    expect(report.unused).toEqual([]);
  });

  it("opens it again when the value changed, when it expired, and lists what matched nothing", () => {
    const title = finding("Title", "a");
    const changed = matchAcks("prod", [finding("Title", "b")], [ackOf(title)], NOW);
    expect(changed.open[0]?.resurfaced).toBe("acknowledged value changed");
    const expired = matchAcks("prod", [title], [ackOf(title)], new Date("2027-02-01T00:00:00Z"));
    expect(expired.open[0]?.resurfaced).toBe("expired (until 2027-01-31)");
    // The last day holds to its end.
    expect(matchAcks("prod", [title], [ackOf(title)], new Date("2027-01-31T23:59:59Z")).open).toEqual([]);
    const edited = matchAcks("prod", [title], [ackOf(title, { fingerprint: "0123456789abcdef" })], NOW);
    expect(edited.open).toEqual([title]);
    expect(edited.unused[0]?.why).toMatch(/^no finding of prod has this fingerprint/);
    // Another environment's acknowledgement is not this run's.
    expect(matchAcks("prod", [title], [ackOf(title, { environment: "test" })], NOW).unused).toEqual([]);
  });
});

describe("sensitive values", () => {
  const seal = driftSealOf(generateSigningKey().privateKey);
  const sensitive = (canonical: string, withSeal: typeof seal | null = seal) => ({
    ...finding("FirstName", null),
    valueHash: sealedHashOf(finding("FirstName", null).fingerprint, canonical, withSeal ?? undefined),
  });

  it("hash the value alone under the shared key, bound to the finding, and nothing without a key", () => {
    expect(sensitive('"a"').valueHash).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(sensitive('"a"').valueHash).toBe(sensitive('"a"').valueHash);
    expect(sensitive('"a"').valueHash).not.toBe(sensitive('"b"').valueHash);
    const other = driftSealOf(generateSigningKey().privateKey);
    expect(sensitive('"a"', other).valueHash).not.toBe(sensitive('"a"').valueHash);
    expect(sealedHashOf("0123456789abcdef", '"a"', seal)).not.toBe(sensitive('"a"').valueHash);
    expect(sensitive('"a"', null).valueHash).toBe(SEALED_UNAVAILABLE);
    expect(driftSealOf(undefined)).toBeUndefined();
  });

  it("an acknowledgement holds on the fingerprint alone where one side has no hash, and says so", () => {
    const keyed = sensitive('"a"');
    const blind = sensitive('"a"', null);
    const runWithout = matchAcks("prod", [blind], [ackOf(keyed)], NOW);
    expect(runWithout.open).toEqual([]);
    expect(runWithout.acknowledged[0]?.acknowledgement.note).toMatch(/this run has no EGP_SIGNING_KEY/);
    const writtenWithout = matchAcks("prod", [sensitive('"b"')], [ackOf(blind)], NOW);
    expect(writtenWithout.open).toEqual([]);
    expect(writtenWithout.acknowledged[0]?.acknowledgement.note).toMatch(/written without EGP_SIGNING_KEY/);
    // Both keyed: the value is compared.
    expect(matchAcks("prod", [sensitive('"b"')], [ackOf(keyed)], NOW).open[0]?.resurfaced).toBe(
      "acknowledged value changed",
    );
    // Expiry still holds.
    expect(matchAcks("prod", [blind], [ackOf(keyed)], new Date("2027-02-01T00:00:00Z")).open).toHaveLength(1);
  });
});

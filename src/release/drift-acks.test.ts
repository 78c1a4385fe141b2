import { describe, expect, it } from "vitest";
import type { DriftAck } from "../manifest/drift-ack.ts";
import { matchAcks } from "./drift-acks.ts";
import { type Finding, fingerprintOf, REMEDIES, valueHashOf } from "./drift-findings.ts";

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

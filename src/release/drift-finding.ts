import { createHash } from "node:crypto";
import { canonicalJson, type PartDifference, partLabel } from "../plan/index.ts";

/*
 * A drift finding and what names it: its fingerprint, the hash of its live value, how its part
 * reads and what fixes it (drift-findings.ts derives them from a plan).
 */

export type FindingSeverity = "high" | "medium" | "low";

export const REMEDIES = {
  plan: "plan fixes it",
  byHand: "only by hand: a package cannot remove it",
  kept: "only by hand: the package's install options keep the target's",
  unchecked: "check it by hand, or fix what kept egp from reading it",
} as const;

export type Remedy = (typeof REMEDIES)[keyof typeof REMEDIES];

export interface Finding {
  /** Stable: a hash of environment, kind, object and part, the same while the value changes. */
  fingerprint: string;
  environment: string;
  kind: string;
  /** The object's key, as the plan names it (`anguyen`, `Application Third Parties`). */
  object: string;
  /** How people read the object (`User "anguyen"`): what text and markdown group findings by. */
  label: string;
  /** What of the object differs: a field, a package part (`rule:<guid>`), or `(object)` for all of it. */
  part: string;
  /** The part as people read it (`title`, `event rule "Escalate"`). */
  partLabel: string;
  severity: FindingSeverity;
  /**
   * A hash of the live value: `sha256:`, or where the value is sensitive `hmac-sha256:` under the
   * shared key, or `sealed:unavailable` without one.
   */
  valueHash: string;
  /** What it differs from: the manifest position, or the release. */
  differsFrom: string;
  remedy: Remedy;
  /** On the target only, and nothing egp applies can remove it. */
  onlyOnTarget?: boolean;
  /** Not compared: why (`unchecked: <why>`). */
  unchecked?: string;
  /** Open again though acknowledged: `acknowledged value changed`, `expired`, or why the acknowledgement no longer matches. */
  resurfaced?: string;
}

/** 16 hex digits of sha256 over what the finding is about: short enough to type, 64 bits apart. */
export function fingerprintOf(environment: string, kind: string, object: string, part: string): string {
  return createHash("sha256")
    .update(`egp drift finding\0${environment}\0${kind}\0${object}\0${part}`)
    .digest("hex")
    .slice(0, 16);
}

/**
 * The value hash of a sensitive value when the run has no key to hash it with: a plain hash of a
 * short secret is a guess away from it, so none is shown, and an acknowledgement of it holds on its
 * fingerprint alone (drift-acks.ts).
 */
export const SEALED_UNAVAILABLE = "sealed:unavailable";

/** A keyed digest (hex) of a text, under the key the team shares (drift-seal.ts). */
export type Seal = (text: string) => string;

/**
 * A sensitive value's hash: HMAC-SHA256 of its canonical JSON under the shared key, bound to the
 * finding's fingerprint, so that equal values of two findings don't look equal.
 */
export function sealedHashOf(fingerprint: string, canonical: string | undefined, seal?: Seal): string {
  if (!seal || canonical === undefined) return SEALED_UNAVAILABLE;
  return `hmac-sha256:${seal(`${fingerprint}\0${canonical}`)}`;
}

/** The live value's hash: plain sha256 of its canonical JSON, egp's plans show these values anyway. */
export function valueHashOf(value: unknown): string {
  return `sha256:${createHash("sha256")
    .update(canonicalJson(value ?? null))
    .digest("hex")}`;
}

export function partLabelOf(part: Pick<PartDifference, "part" | "name" | "parent">): string {
  const of = part.parent ? ` of ${JSON.stringify(part.parent)}` : "";
  return `${partLabel(part.part)} ${JSON.stringify(part.name)}${of}`;
}

import type { DesiredState, FieldWords } from "../manifest/index.ts";
import { type AmbiguousKey, type Change, countsAsDrift, type FieldChange, type Plan } from "../plan/index.ts";
import type { LiveState } from "../state/index.ts";
import {
  type Finding,
  type FindingSeverity,
  fingerprintOf,
  partLabelOf,
  REMEDIES,
  type Seal,
  sealedHashOf,
  valueHashOf,
} from "./drift-finding.ts";
import { onlyOnTargetFindings } from "./drift-only-on-target.ts";

export type { Finding, FindingSeverity, Remedy, Seal } from "./drift-finding.ts";
export { fingerprintOf, REMEDIES, SEALED_UNAVAILABLE, valueHashOf } from "./drift-finding.ts";

/*
 * Drift as findings: each difference between an environment and what it should run, one object's
 * one part at a time, with a fingerprint that names the difference (not its value), a hash of the
 * live value, a severity and what fixes it. Derived from the plan the drift command makes and the
 * live state it read, by pure functions: the planner itself knows nothing of findings.
 */

export interface FindingOptions {
  /** A keyed digest for sensitive values (drift-seal.ts); without it their hash is `sealed:unavailable`. */
  seal?: Seal;
  /** Each kind's manifest words (`fieldWordsOf`): a field's finding is labelled as manifests name it. */
  words?: (kind: string) => FieldWords | undefined;
}

const OBJECT_PART = "(object)";
/** The part of a finding that a key matches more than one live object. */
const DUPLICATE_PART = "(duplicate)";

const HIGH_USER_FIELDS = new Set(["AccountStatus", "Roles", "Groups", "SecurityParameter"]);

function severityOf(kind: string, field: string | undefined): FindingSeverity {
  if (kind === "Record") return "low";
  if (kind === "SecurityParameter") return "high";
  if (kind === "User") return field === undefined || HIGH_USER_FIELDS.has(field) ? "high" : "medium";
  return "medium";
}

function differsFromOf(plan: Plan, desired: DesiredState | undefined, change: Change): string {
  if (change.kind === "Package" && desired?.release) return `release ${desired.release.name}`;
  if (change.source) {
    const at = `${change.source.file}:${change.source.line}`;
    return change.kind === "Package" && plan.sourceEnvironment
      ? `${at} (from ${plan.sourceEnvironment})`
      : at;
  }
  return "not in the manifests (a PrunePolicy acts on it)";
}

function labelOf(change: Change): string {
  return `${change.kind} ${change.label ?? JSON.stringify(change.key)}`;
}

/** The live value's hash of a field change; a sensitive field's (no value shown) keyed, or none without a key. */
function liveHash(field: FieldChange, fingerprint: string, options: FindingOptions): string {
  if (!field.sensitive) return valueHashOf(field.before);
  return sealedHashOf(fingerprint, field.live?.reveal(), options.seal);
}

function packagePartFindings(
  plan: Plan,
  change: Change,
  field: FieldChange,
  base: Omit<
    Finding,
    "fingerprint" | "object" | "label" | "part" | "partLabel" | "severity" | "valueHash" | "remedy"
  >,
): Finding[] {
  const object = field.field;
  const label = `Package ${JSON.stringify(change.key)} › ${object}`;
  const parts = (field.parts ?? []).filter((part) => part.status !== "onlyOnTarget");
  if (parts.length === 0)
    return [
      {
        ...base,
        fingerprint: fingerprintOf(plan.environment, change.kind, object, OBJECT_PART),
        object,
        label,
        part: OBJECT_PART,
        partLabel: "the whole object",
        severity: "medium",
        valueHash: valueHashOf(field.before),
        remedy: REMEDIES.plan,
      },
    ];
  return parts.map((part) => ({
    ...base,
    fingerprint: fingerprintOf(plan.environment, change.kind, object, `${part.part}:${part.guid}`),
    object,
    label,
    part: `${part.part}:${part.guid}`,
    partLabel: partLabelOf(part),
    severity: "medium",
    valueHash: valueHashOf(part.status === "added" ? null : (part.properties ?? []).map((p) => p.before)),
    remedy: part.keptByInstall ? REMEDIES.kept : REMEDIES.plan,
  }));
}

function changeFindings(
  plan: Plan,
  desired: DesiredState | undefined,
  change: Change,
  options: FindingOptions,
) {
  const base = {
    environment: plan.environment,
    kind: change.kind,
    differsFrom: differsFromOf(plan, desired, change),
  };
  if (change.kind === "Package")
    return change.fields
      .filter((f) => f.verifiable)
      .flatMap((f) => packagePartFindings(plan, change, f, base));
  const whole = (live: unknown): Finding => ({
    ...base,
    fingerprint: fingerprintOf(plan.environment, change.kind, change.key, OBJECT_PART),
    object: change.key,
    label: labelOf(change),
    part: OBJECT_PART,
    partLabel:
      change.action === "create" ? "missing on the target" : `on the target (${change.action} by plan)`,
    severity: severityOf(change.kind, undefined),
    valueHash: valueHashOf(live),
    remedy: REMEDIES.plan,
  });
  if (change.action === "create") return [whole(null)];
  if (change.action !== "update") return [whole({ present: change.key })];
  return change.fields
    .filter((field) => field.verifiable)
    .map((field) => {
      const fingerprint = fingerprintOf(plan.environment, change.kind, change.key, field.field);
      return {
        ...base,
        fingerprint,
        object: change.key,
        label: labelOf(change),
        part: field.field,
        partLabel: options.words?.(change.kind)?.[field.field]?.name ?? field.field,
        severity: severityOf(change.kind, field.field),
        valueHash: liveHash(field, fingerprint, options),
        remedy: REMEDIES.plan,
      };
    });
}

/** A key that matches several live objects: theirs to merge or delete by hand, as no plan can tell them apart. */
function duplicateFinding(plan: Plan, ambiguous: AmbiguousKey): Finding {
  const source = ambiguous.source;
  return {
    fingerprint: fingerprintOf(plan.environment, ambiguous.kind, ambiguous.key, DUPLICATE_PART),
    environment: plan.environment,
    kind: ambiguous.kind,
    object: ambiguous.key,
    label: `${ambiguous.kind} ${ambiguous.key}`,
    part: DUPLICATE_PART,
    partLabel: `duplicates on the target: ${ambiguous.message}`,
    severity: severityOf(ambiguous.kind, undefined),
    valueHash: valueHashOf([...ambiguous.ids].sort((a, b) => a - b)),
    differsFrom: source ? `${source.file}:${source.line}` : "(the manifests)",
    remedy: REMEDIES.byHand,
    onlyOnTarget: true,
  };
}

/**
 * Every finding of one drift plan: its drifting changes, field by field (a package's part by part),
 * and what only the target has that no install removes. Sorted by object then part, fingerprints
 * unique (the first of two alike is kept).
 */
export function findingsOf(
  plan: Plan,
  live: LiveState | undefined,
  desired: DesiredState | undefined,
  options: FindingOptions = {},
): Finding[] {
  const found = [
    ...plan.changes.filter(countsAsDrift).flatMap((change) => changeFindings(plan, desired, change, options)),
    ...(plan.ambiguousKeys ?? []).map((ambiguous) => duplicateFinding(plan, ambiguous)),
    ...(live && desired ? onlyOnTargetFindings(plan, live, desired) : []),
  ];
  const seen = new Set<string>();
  return found
    .filter((finding) => !seen.has(finding.fingerprint) && seen.add(finding.fingerprint))
    .sort((a, b) => a.label.localeCompare(b.label) || a.part.localeCompare(b.part));
}

/** What a view compared, as `viewEnvironment` gives it. */
export interface ViewResult {
  plan: Plan;
  live: LiveState;
  desired: DesiredState;
  unchecked?: readonly { what: string; why: string }[];
}

/**
 * The findings of a read-only view: those of its plan, and one open finding for each thing it could
 * not compare (a rejected release's packages, a source it could not reach, a kind it could not read).
 */
export function viewFindings(view: ViewResult, options: FindingOptions = {}): Finding[] {
  const environment = view.plan.environment;
  const rejected = view.plan.rejectedRelease;
  const unchecked = [
    ...(rejected
      ? [uncheckedFinding(environment, `packages (release ${rejected.release})`, rejected.message)]
      : []),
    ...(view.unchecked ?? []).map((u) => uncheckedFinding(environment, u.what, u.why)),
  ];
  return [...unchecked, ...findingsOf(view.plan, view.live, view.desired, options)];
}

/** A finding for what could not be checked: open, so that a check that could not look never says "no drift". */
export function uncheckedFinding(environment: string, what: string, why: string): Finding {
  return {
    fingerprint: fingerprintOf(environment, "unchecked", what, OBJECT_PART),
    environment,
    kind: "unchecked",
    object: what,
    label: `unchecked: ${what}`,
    part: OBJECT_PART,
    partLabel: `unchecked: ${why}`,
    severity: "high",
    valueHash: valueHashOf(why),
    differsFrom: "(not compared)",
    remedy: REMEDIES.unchecked,
    unchecked: why,
  };
}

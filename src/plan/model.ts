import type { SourceLocation } from "../manifest/index.ts";
import { Secret } from "../wire/secret.ts";
import type { ChangeAction } from "./actions.ts";
import type { ChangeKind, StepOp } from "./kinds/steps.ts";
import type { PartDifference } from "./part-difference.ts";

/** Version of the plan file format (docs/plan-format.md). */
export const PLAN_FORMAT_VERSION = 1;

/** The kinds a plan can name (kinds/steps.ts). */
/** What happens to one resource (actions.ts). */
export type { ChangeAction, ChangeKind };

/** Shown wherever a secret would be. */
export const SENSITIVE = "(sensitive)";

/**
 * A value from `${VAR}`, held in memory only: JSON leaves it out and text shows `(sensitive)`, so a
 * plan that holds one can be saved, logged or rendered without it; `reveal()` gives it where a step
 * sends it.
 */
export class SealedValue extends Secret {
  constructor(value: string) {
    super(value, SENSITIVE, undefined);
  }
}

/**
 * A sensitive field's live value, in memory only: JSON (and so a plan's comparison with a saved one)
 * leaves it out altogether, where a `SealedValue` writes `(sensitive)`.
 */
export class SealedLive extends Secret {
  constructor(value: string) {
    super(value, SENSITIVE);
  }

  override toJSON(): undefined {
    return undefined;
  }
}

/**
 * A step input that came from `${VAR}`. The step's input holds `(sensitive)` at `path`; apply puts
 * the value back just before the step runs, from the variable as it is then.
 */
export interface SensitiveInput {
  step: string;
  path: (string | number)[];
  /** The manifest text the value came from (`${EGP_PROD_PASSWORD}`). */
  reference: string;
  /** Plan files only: a keyed digest of the value (docs/plan-format.md), to refuse the plan when it changed. */
  digest?: string;
  /** In memory only, never serialized. */
  value?: SealedValue;
}

export interface FieldChange {
  /** The interface's field name, or a dot-path (`Contacts`, `Roles`, `Objects.Risk Register`). */
  field: string;
  before?: unknown;
  after?: unknown;
  /** Written on apply but not readable from the instance: shown, never counted as drift. */
  verifiable: boolean;
  /**
   * The desired value came from `${VAR}`: `before` and `after` are left out (the live value would
   * tell what the secret replaced, or be it) and the plan shows these references instead.
   */
  sensitive?: string[];
  /**
   * A sensitive field's live value (`before`, as canonical JSON), in memory only: JSON leaves it out.
   * Drift hashes it under a shared key, so that an acknowledgement names this value and no other.
   */
  live?: SealedLive;
  /** Packages: every part of the object that differs, with its properties and severity (package-diff.ts). */
  parts?: PartDifference[];
  /** Packages: an object the package gained with `includeDependencies`, and what needed it. */
  dependencyOf?: { object: string; field: string };
}

export interface Change {
  /** `<Kind>/<key>`. */
  id: string;
  kind: ChangeKind;
  key: string;
  /**
   * How plans name the object, when its key alone does not read well (`Third Parties "Acme
   * Hosting"`, a record by its application and key values, each quoted); absent: the key, quoted.
   */
  label?: string;
  action: ChangeAction;
  fields: FieldChange[];
  notes: string[];
  /** A delete or deactivate of something live: the plan shows it loudly. */
  destructive: boolean;
  /** Where the manifest declares it (absent for unmanaged resources). */
  source?: SourceLocation;
}

/** An op of a kind: one of egp's own (kinds/steps.ts) or one a kind from outside egp declares. */
export type { StepOp };

export interface Step {
  /** `<change id>#<verb>`, unique in the plan. */
  id: string;
  change: string;
  op: StepOp;
  /** The environment the step talks to: the plan's own, or the one packages come from. */
  environment: string;
  dependsOn: string[];
  /** Everything the step needs but secrets, which are read again from the manifests on apply. */
  input: Record<string, unknown>;
}

export interface UnmanagedResource {
  kind: ChangeKind;
  key: string;
}

export interface PlanSummary {
  add: number;
  change: number;
  destroy: number;
  promote: number;
  /** Changes that count as drift (verifiable differences). */
  drift: number;
}

/** A release the environment names that was rejected: a view compared the environment without it. */
export interface RejectedRelease {
  release: string;
  /** The release gate's line: who rejected it, when and why. */
  message: string;
}

/** A freeze window in force when the plan was made: the apply is refused unless an exception lets its actor through. */
export interface PlanFreeze {
  /** When the window ends, in its time zone (`2026-12-07 04:00`) and as an instant. */
  until: string;
  zone: string;
  untilInstant: string;
  reason: string;
}

/** A manifest key that matches more than one live object: which one is meant can't be told. */
export interface AmbiguousKey {
  kind: ChangeKind;
  /** The object's key, as the plan names its change (`Third Parties "Acme Hosting"`). */
  key: string;
  /** The refusal's words, naming the live objects (`… matches 2 records (content ids 1001, 1004) …`). */
  message: string;
  /** The live objects' ids, as the instance numbers them. */
  ids: number[];
  source?: SourceLocation;
}

export interface Plan {
  formatVersion: typeof PLAN_FORMAT_VERSION;
  /** Deterministic: a digest of the environment, the manifests and the live state. */
  id: string;
  environment: string;
  /** The environment packages are promoted from, when the plan promotes any. */
  sourceEnvironment?: string;
  createdAt: string;
  digests: { manifests: string; live: string; liveParts: Record<string, string> };
  /**
   * Options the plan was made with, which apply must honour. `targets` and `manifests` make a
   * partial plan: apply plans and compares only what they select.
   */
  options: { allowDelete: boolean; enforceRoles: boolean; targets?: string[]; manifests?: string[] };
  /** A partial plan (`--target`): how many objects it targets, of how many the plan read. */
  partial?: { targeted: number; of: number };
  changes: Change[];
  /** In dependency order: every step comes after the steps it depends on. */
  steps: Step[];
  unmanaged: UnmanagedResource[];
  /** Unmanaged objects the PrunePolicy's `exclude` names: never pruned. */
  excluded: UnmanagedResource[];
  /**
   * What was not read (no document manages it, no PrunePolicy names it), by its label: its
   * unmanaged objects are not counted, since nobody looked.
   */
  notRead?: string[];
  summary: PlanSummary;
  /** Step inputs that came from `${VAR}`; absent when none. */
  sensitive?: SensitiveInput[];
  /** Plan files only: how `sensitive[].digest` was keyed (plan-file.ts). */
  sealing?: { salt: string; keyed: boolean };
  /** A freeze in force when the plan was made (the release stage's); absent when none. */
  freeze?: PlanFreeze;
  /** Drift and status only: the release the environment names is rejected and was not compared. */
  rejectedRelease?: RejectedRelease;
  /**
   * Drift and status only (`ambiguousKeys: "report"`): manifest keys that match more than one live
   * object, which plan and apply refuse; the entries were not compared.
   */
  ambiguousKeys?: AmbiguousKey[];
}

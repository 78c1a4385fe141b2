import { EgpError } from "../../errors/index.ts";
import type { DesiredLists, DesiredState, FieldSource } from "../../manifest/index.ts";
import type { LivePackageObject, LiveState } from "../../state/live-state.ts";
import type { SecurityParameter } from "../../wire/index.ts";
import type { AmbiguousKey, Change, ChangeKind, Step, UnmanagedResource } from "../model.ts";

export interface PlanOptions {
  /** Prune what the manifests do not name even where the policy says `ignore` (auth0's AUTH0_ALLOW_DELETE). */
  allowDelete?: boolean;
  /** Send roles on every managed user, even when nothing else changed (roles can't be read back). */
  enforceRoles?: boolean;
  /** `--target KIND/KEY` as written: plan only these objects (and what their steps depend on). */
  targets?: readonly string[];
  /** `--manifests GLOB` as written: the manifest files loaded; recorded so that apply loads the same. */
  manifests?: readonly string[];
  /**
   * A manifest key matching more than one live object refuses the plan (`refuse`, the default);
   * a read-only view's plan (`report`) leaves the entry out and lists it (`Plan.ambiguousKeys`).
   */
  ambiguousKeys?: "refuse" | "report";
}

/** The security parameters as a plan leaves them, by lower-case name, and which one is the default. */
export interface ParametersAfterPlan {
  byName: ReadonlyMap<string, Partial<SecurityParameter> & { Name: string }>;
  default?: Partial<SecurityParameter> & { Name: string };
}

/**
 * What the plan leaves on the instance, each part given by the kind that owns it (`leaves`), so
 * that a kind reads another's outcome from its input instead of importing that kind's planner.
 */
export interface PlannedState {
  securityParameters?: ParametersAfterPlan;
  /** The objects the plan's packages install, as their source has them, by package. */
  packageDeliveries?: PackageDelivery[];
}

/** An object a package of the plan installs: what its fields and levels will be once installed. */
export interface PackageDelivery {
  package: string;
  object: LivePackageObject;
}

export interface PlanInput {
  desired: DesiredState;
  live: LiveState;
  options: PlanOptions;
  /** What every kind's plan leaves (the composer asks each planner's `leaves` before planning). */
  planned: PlannedState;
}

/**
 * A kind's steps may depend on other resources by id (`SecurityParameter/<name>`): the orderer
 * turns such a dependency into one on that resource's last step, when the plan changes it.
 */
export const RESOURCE_DEPENDENCY = "resource:";

/** A dependency on the change of resource `key` of `kind` (change ids are `<kind>/<key>`). */
export function resourceDependency(kind: ChangeKind, key: string): string {
  return `${RESOURCE_DEPENDENCY}${kind}/${key}`;
}

export interface KindPlan {
  changes: Change[];
  steps: Step[];
  unmanaged: UnmanagedResource[];
  /** Unmanaged, and named by the PrunePolicy's `exclude`: never pruned. */
  excluded?: UnmanagedResource[];
  /** With `ambiguousKeys: "report"`: the keys that match more than one live object. */
  ambiguous?: AmbiguousKey[];
}

/** One object of a kind, by its key as a plan shows it, with what the manifests and the instance say of it. */
export interface PlannedObject {
  key: string;
  desired?: unknown;
  live?: unknown;
}

/** A list of the desired state, by its manifest kind's `plural` (manifest/kinds/index.ts). */
export type DesiredPlural = keyof DesiredLists & string;

/** One document of the desired state's list `plural`. */
export type DesiredDocumentIn<P extends DesiredPlural> = NonNullable<DesiredLists[P]>[number];

/**
 * A kind's list in the desired state and the key a target matches on one of its documents, typed
 * together so that `keyOf` is given documents of that list only.
 */
export type KindDocuments<P extends DesiredPlural = DesiredPlural> = {
  [Q in DesiredPlural]: { plural: Q; keyOf(document: DesiredDocumentIn<Q>): string };
}[P];

/** The documents of a kind's list whose key `keep` accepts. */
export function documentsWhere<P extends DesiredPlural>(
  documents: KindDocuments<P>,
  desired: DesiredLists,
  keep: (key: string) => boolean,
): DesiredDocumentIn<P>[] {
  const list: readonly DesiredDocumentIn<P>[] = desired[documents.plural] ?? [];
  return list.filter((doc) => keep(documents.keyOf(doc)));
}

export interface KindPlanner {
  kind: ChangeKind;
  /** Where the kind's steps start relative to others (lower first); deletes always come last. */
  order: number;
  /** Fields that are written but can't be read back: shown, never counted as drift. */
  unverifiable: readonly string[];
  /**
   * What the platform would refuse in this kind's part of the plan and that the live state lets the
   * planner see beforehand (DESIGN §3, "Plan refuses what the platform will refuse"); run before any
   * step is planned, so that a plan with such a problem is never made and nothing is written.
   */
  refusals?(input: PlanInput): PlanProblem[];
  /** This kind's part of what the plan leaves on the instance, for other kinds that read it. */
  leaves?(input: Pick<PlanInput, "desired" | "live">): PlannedState;
  plan(input: PlanInput): KindPlan;
  /** Where the kind's documents are in the desired state, and the key a target matches. */
  documents?: KindDocuments;
  /** Kinds whose documents and live objects this kind's plan reads whole (a target keeps them whole). */
  reads?: readonly ChangeKind[];
  /** The kind's objects in the manifests and on the instance: what `--target` counts and digests. */
  objects?(input: Pick<PlanInput, "desired" | "live">): PlannedObject[];
}

/** Something the platform would refuse, at the manifest field that asks for it. */
export interface PlanProblem extends FieldSource {
  message: string;
  /** The object it concerns, so that a targeted plan keeps only its own refusals. */
  subject?: { kind: ChangeKind; key: string };
  /** A key that matches several live objects: their ids. */
  duplicates?: readonly number[];
}

/** The kind's objects by lower-case key: the manifests' (present or absent) merged with the live ones. */
export function mergeObjects(
  documents: ReadonlyArray<{ key: string; desired: unknown }>,
  live: ReadonlyArray<{ key: string; live: unknown }>,
): PlannedObject[] {
  const byKey = new Map<string, PlannedObject>();
  for (const doc of documents) byKey.set(doc.key.toLowerCase(), { key: doc.key, desired: doc.desired });
  for (const item of live) {
    const found = byKey.get(item.key.toLowerCase());
    if (found) found.live = item.live;
    else byKey.set(item.key.toLowerCase(), { key: item.key, live: item.live });
  }
  return [...byKey.values()];
}

/** `manifests/users.yaml:12:3 users[3].initialPassword: message`, as manifest errors are written. */
export function formatPlanProblem(problem: PlanProblem): string {
  const where = problem.line > 0 ? `${problem.file}:${problem.line}:${problem.column}` : problem.file;
  return problem.path ? `${where} ${problem.path}: ${problem.message}` : `${where}: ${problem.message}`;
}

/** A problem that makes a plan impossible, such as a package naming an application the source lacks. */
export class PlanError extends EgpError {
  /** Each problem at its manifest position; empty when the message says it all. */
  readonly problems: readonly PlanProblem[];
  constructor(message: string, problems: readonly PlanProblem[] = []) {
    super("EGP_PLAN_INVALID", message);
    this.name = "PlanError";
    this.problems = problems;
  }

  /** The plan's problems, each at its manifest field; the message is the first, as ManifestError's. */
  static refused(problems: readonly PlanProblem[]): PlanError {
    const [first, ...more] = problems;
    if (!first) throw new TypeError("PlanError.refused needs at least one problem");
    const tail = more.length > 0 ? ` (and ${more.length} more)` : "";
    return new PlanError(`${formatPlanProblem(first)}${tail}`, problems);
  }
}

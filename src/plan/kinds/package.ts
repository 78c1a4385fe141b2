import type {
  AssumedInstallCode,
  DesiredPackage,
  DesiredPackageObject,
  DesiredRelease,
  DesiredState,
  InstallChoice,
} from "../../manifest/index.ts";
import type { LivePackageSide } from "../../state/live-state.ts";
import type { Change, Step } from "../model.ts";
import { describeDifference, type MatchOptions, objectMatches } from "../package-diff.ts";
import {
  type KindPlan,
  type KindPlanner,
  type PackageDelivery,
  PlanError,
  type PlanInput,
  type PlanProblem,
  RESOURCE_DEPENDENCY,
} from "./kind.ts";
import { makeStep } from "./make-step.ts";
import {
  addedObject,
  dependenciesFor,
  type PackageContext,
  packageProblems,
  type ResolvedObject,
  written,
} from "./package-checks.ts";
import { orderProblems } from "./package-order.ts";
import { planRelease } from "./package-release.ts";
import { snapshotSteps } from "./package-snapshot.ts";
import { packageSteps } from "./package-steps.ts";
import { versionProblem } from "./package-version.ts";
import type { StepInputIn } from "./steps.ts";

export const KIND = packageSteps.kind;

/** The GUID an object of the manifest names, resolved on the source. */
export function resolveObjectGuid(object: DesiredPackageObject, source: LivePackageSide): string | undefined {
  if (object.by === "guid") return object.guid;
  const name = object.name.toLowerCase();
  return Object.hasOwn(source.applicationsByName, name) ? source.applicationsByName[name] : undefined;
}

/** What an object's install words mean for the comparison, whatever codes the target is sent. */
function matchOptionsOf(install: InstallChoice): MatchOptions {
  return {
    installMethod: install.method === "createNew" ? 1 : 2,
    installOption: install.layout === "keep" ? 1 : 2,
  };
}

/**
 * Said once per plan, on the first promotion that sends a non-default option with an assumed code:
 * the interface description does not give the codes' meanings, so a wrong guess would install
 * otherwise than asked without any error.
 */
function assumedCodesNote(pkg: DesiredPackage, environmentFile: string): string | undefined {
  const assumed = new Map<string, AssumedInstallCode>();
  for (const object of pkg.objects) for (const code of object.install.assumed) assumed.set(code.key, code);
  if (assumed.size === 0) return undefined;
  const sorted = [...assumed.values()].sort((a, b) => a.key.localeCompare(b.key));
  const codes = sorted.map((c) => `${c.field} ${c.code} for ${c.word}`).join(", ");
  const keys = sorted.map((c) => c.key).join(", ");
  return `assumed install codes: ${codes} (the interface description does not give their meaning); set ${keys} in ${environmentFile} if this instance codes them otherwise`;
}

const CHAIN = ["create", "generate", "download", "upload", "install", "verify"] as const;

/**
 * Packages: promoted from the environment named by `packagesFrom` when any object they name differs
 * between it and the target. The steps are a chain: create → generate → download on the source, then
 * upload → install → verify on the target; unless the document turns it off, a snapshot of the
 * target's current versions (snapshot → snapshot-generate → snapshot-download on the target) runs
 * beside the source's chain and must be kept before the upload starts.
 */
export const packagePlanner: KindPlanner = {
  kind: KIND,
  order: 0,
  unverifiable: [],
  documents: { plural: "packages", keyOf: (pkg: DesiredPackage) => pkg.name },
  // dependsOn: a targeted package's plan needs the packages it depends on, promoted first.
  reads: [KIND],
  objects({ desired, live }) {
    // A package is its objects: as the manifest names them, and their trees on both sides.
    return desired.packages.map((pkg) => {
      const guids = live.packageSource
        ? pkg.objects.map((object) => resolveObjectGuid(object, live.packageSource!))
        : [];
      const trees = guids.map((guid) =>
        guid ? [live.packageSource?.objects[guid] ?? null, live.packages.objects[guid] ?? null] : null,
      );
      return { key: pkg.name, desired: pkg, live: trees };
    });
  },
  leaves: ({ desired, live }) => ({ packageDeliveries: deliveriesOf(desired, live) }),
  refusals({ desired, live }: PlanInput): PlanProblem[] {
    if (desired.release) return releaseVersionProblems(desired.release, live.packages, desired.environment);
    const source = live.packageSource;
    if (desired.packages.length === 0 || !desired.packagesFrom || !source) return [];
    const order = orderProblems(desired.packages);
    if (order.length > 0) return order;
    const context = contextOf(desired.packages, source, live.packages, desired.environment.name);
    return desired.packages.flatMap((pkg) => {
      const listed = installedObjects(pkg, source, context.target);
      // A package whose objects all match is not installed: nothing of it can be refused.
      if (!listed) return [];
      const version = versionProblem({
        built: { what: `package "${pkg.name}" of ${source.environment}`, version: source.version },
        target: { environment: desired.environment.name, version: live.packages.version },
        at: pkg.source,
      });
      return [...(version ? [version] : []), ...packageProblems(pkg, listed, context)];
    });
  },
  plan({ desired, live }: PlanInput): KindPlan {
    if (desired.release) return planRelease(desired.release, live.packages, desired.environment.name);
    const result: KindPlan = { changes: [], steps: [], unmanaged: [] };
    if (desired.packages.length === 0 || !desired.packagesFrom) return result;
    const source = live.packageSource;
    if (!source)
      throw new PlanError(`packages need the state of ${desired.packagesFrom}, which was not read`);

    const context = contextOf(desired.packages, source, live.packages, desired.environment.name);
    let noted = false;
    for (const pkg of desired.packages) {
      const planned = planPackage(
        pkg,
        source,
        live.packages,
        desired.environment.name,
        source.environment,
        context,
      );
      if (!planned) continue;
      const note = noted ? undefined : assumedCodesNote(pkg, desired.environment.file);
      if (note) {
        planned.change.notes.push(note);
        noted = true;
      }
      result.changes.push(planned.change);
      result.steps.push(...planned.steps);
    }
    return result;
  },
};

/**
 * The objects the plan's promotions install, each as its source has it: a package installs all its
 * named objects when any of them differs from the target's. A release's objects are left out: its
 * file records their parts' names, not their fields' definitions.
 */
function deliveriesOf(desired: DesiredState, live: PlanInput["live"]): PackageDelivery[] {
  const source = live.packageSource;
  if (desired.release || !desired.packagesFrom || !source) return [];
  return desired.packages.flatMap(
    (pkg) =>
      installedObjects(pkg, source, live.packages)?.map(({ live: found }) => ({
        package: pkg.name,
        object: found,
      })) ?? [],
  );
}

/**
 * A package's objects found on its source, each with the manifest's entry naming it, when the
 * package installs (some object differs from the target's); undefined when all match.
 */
function installedObjects(pkg: DesiredPackage, source: LivePackageSide, target: LivePackageSide) {
  const listed = pkg.objects.flatMap((object) => {
    const guid = resolveObjectGuid(object, source);
    const found = guid ? source.objects[guid] : undefined;
    return found ? [{ object, live: found }] : [];
  });
  const installs = listed.some(
    ({ object, live }) => !objectMatches(live, target.objects[live.guid], matchOptionsOf(object.install)),
  );
  return installs ? listed : undefined;
}

/** A release that would install anything is refused on a platform older than the one it was built on. */
function releaseVersionProblems(
  release: DesiredRelease,
  target: LivePackageSide,
  environment: DesiredState["environment"],
): PlanProblem[] {
  if (planRelease(release, target, environment.name).changes.length === 0) return [];
  const problem = versionProblem({
    built: { what: `release ${release.name} (built on ${release.from})`, version: release.platformVersion },
    target: { environment: environment.name, version: target.version },
    at: { ...environment.source, path: "release" },
  });
  return problem ? [problem] : [];
}

function contextOf(
  packages: readonly DesiredPackage[],
  source: LivePackageSide,
  target: LivePackageSide,
  environment: string,
): PackageContext {
  const resolve = (pkg: DesiredPackage) =>
    pkg.objects.flatMap((object) => {
      const guid = resolveObjectGuid(object, source);
      const found = guid ? source.objects[guid] : undefined;
      return found ? [found] : [];
    });
  return { packages, resolve, source, target, environment };
}

/** The change ids of the packages `pkg` names in dependsOn, as the plan spells their names. */
function installedBefore(pkg: DesiredPackage, context: PackageContext | undefined): string[] {
  if (!context) return [];
  return (pkg.dependsOn ?? []).flatMap(({ name }) => {
    const other = context.packages.find((p) => p.name.toLowerCase() === name.toLowerCase());
    return other ? [`${RESOURCE_DEPENDENCY}${KIND}/${other.name}`] : [];
  });
}

function planPackage(
  pkg: DesiredPackage,
  source: LivePackageSide,
  target: LivePackageSide,
  environment: string,
  sourceEnvironment: string,
  context?: PackageContext,
): { change: Change; steps: Step[] } | undefined {
  // Global reports have no read call: they travel in the package but can't be compared.
  const unreadable = pkg.objects.flatMap((object) =>
    object.by === "guid" && object.type === "GlobalReport"
      ? [{ object, live: { guid: object.guid, type: object.type, name: `Global report ${object.guid}` } }]
      : [],
  );
  const objects: ResolvedObject[] = pkg.objects
    .filter((object) => !(object.by === "guid" && object.type === "GlobalReport"))
    .map((object) => {
      const guid = resolveObjectGuid(object, source);
      const what = object.by === "name" ? `application "${object.name}"` : `${object.type} ${object.guid}`;
      const found = guid ? source.objects[guid] : undefined;
      if (!guid || !found) {
        throw new PlanError(
          `${pkg.source.file}:${object.source.line}:${object.source.column} package "${pkg.name}": ${what} does not exist on ${sourceEnvironment}`,
        );
      }
      return { object, live: found };
    });
  if (context && pkg.includeDependencies) {
    const { added } = dependenciesFor(pkg, written(objects, target), context);
    objects.push(...added.map((dependency) => addedObject(pkg, dependency)));
  }
  const differing = objects.filter(
    ({ object, live }) => !objectMatches(live, target.objects[live.guid], matchOptionsOf(object.install)),
  );
  if (differing.length === 0) return undefined;
  const everything = [...objects, ...unreadable];

  const change: Change = {
    id: `${KIND}/${pkg.name}`,
    kind: KIND,
    key: pkg.name,
    action: "promote",
    fields: differing.map(({ object, live, dependency }) => ({
      ...describeDifference(live, target.objects[live.guid], matchOptionsOf(object.install)),
      ...(dependency ? { dependencyOf: { object: dependency.of, field: dependency.field } } : {}),
    })),
    notes: [
      `promoted from ${sourceEnvironment}`,
      ...(unreadable.length
        ? [`${unreadable.length} global report(s) travel along; they can't be read to compare`]
        : []),
    ],
    destructive: false,
    source: pkg.source,
  };
  // The target's current versions of what it has, packaged first: the install can't be undone.
  const existing = objects.filter(({ live }) => target.objects[live.guid] !== undefined);
  const created = objects
    .filter(({ live }) => target.objects[live.guid] === undefined)
    .map(({ live }) => ({ guid: live.guid, type: live.type, name: live.name }));
  const snapshot = pkg.snapshot && existing.length > 0;
  change.notes.push(
    snapshot
      ? `snapshot first: ${existing.map(({ live }) => live.name).join(", ")} as ${environment} has them (undo with egp rollback)`
      : pkg.snapshot
        ? `no snapshot: none of the objects exists on ${environment} yet`
        : "no snapshot (install: { snapshot: false }): egp rollback can't undo this install",
  );
  const input: { [V in (typeof CHAIN)[number]]: StepInputIn<`package.${V}`> } = {
    create: {
      name: pkg.name,
      description: pkg.description ?? null,
      preparedBy: pkg.preparedBy ?? "egp",
      objects: everything.map(({ live }) => ({ guid: live.guid, type: live.type, name: live.name })),
    },
    generate: {},
    // Only objects the source can read are checked in the file; global reports are trusted.
    download: { objects: objects.map(({ live }) => live.guid) },
    upload: {},
    install: {
      inactivateUnusedFields: pkg.inactivateUnusedFields,
      prefixInactivatedFields: pkg.prefixInactivatedFields,
      objects: everything.map(({ object, live }) => ({
        guid: live.guid,
        type: live.type,
        name: live.name,
        installMethod: object.install.InstallMethod,
        installOption: object.install.InstallOption,
        translationOption: object.install.TranslationOption,
      })),
      release: { from: sourceEnvironment, created },
    },
    // Each part must read as the source has it once installed (as the install options leave it):
    // the object's presence alone is not the install's result.
    verify: {
      objects: objects.map(({ object, live }) => ({
        guid: live.guid,
        name: live.name,
        fingerprint: live.fingerprint,
        parts: live.partFingerprints,
        installMethod: object.install.InstallMethod,
        installOption: object.install.InstallOption,
      })),
    },
  };
  const at = (verb: string) => `${change.id}#${verb}`;
  const step = <V extends (typeof CHAIN)[number]>(verb: V, dependsOn: string[]): Step =>
    makeStep(
      change,
      `package.${verb}`,
      verb === "create" || verb === "generate" || verb === "download" ? sourceEnvironment : environment,
      input[verb],
      dependsOn,
    );
  const steps: Step[] = [
    step("create", []),
    step("generate", [at("create")]),
    step("download", [at("generate")]),
  ];
  if (snapshot) {
    const targetObjects = existing
      .map(({ live }) => target.objects[live.guid])
      .filter((o) => o !== undefined);
    steps.push(...snapshotSteps(change, environment, pkg.name, targetObjects));
  }
  // A failed snapshot stops the promotion here: nothing is uploaded, nothing installed.
  steps.push(
    step("upload", snapshot ? [at("download"), at("snapshot-download")] : [at("download")]),
    step("install", [at("upload"), ...installedBefore(pkg, context)]),
    step("verify", [at("install")]),
  );
  return { change, steps };
}

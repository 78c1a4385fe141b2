import type { DesiredPackage, DesiredPackageObject } from "../../manifest/index.ts";
import type { LivePackageObject, LivePackageSide } from "../../state/live-state.ts";
import type { Change, FieldChange, Step } from "../model.ts";
import { type KindPlan, type KindPlanner, PlanError, type PlanInput } from "./kind.ts";
import { packageSteps } from "./package-steps.ts";
import { makeStep, type StepInputIn } from "./steps.ts";

export const KIND = packageSteps.kind;

/** The GUID an object of the manifest names, resolved on the source. */
export function resolveObjectGuid(object: DesiredPackageObject, source: LivePackageSide): string | undefined {
  if (object.by === "guid") return object.guid;
  return source.applicationsByName[object.name.toLowerCase()];
}

function describeParts(parts: Record<string, number>): string {
  return Object.entries(parts)
    .filter(([, count]) => count > 0)
    .map(([part, count]) => `${count} ${count === 1 ? part.replace(/s$/, "") : part}`)
    .join(", ");
}

/** One line on how the target's object differs from the source's. */
function describeDifference(source: LivePackageObject, target: LivePackageObject | undefined): FieldChange {
  const field = `${source.type} ${source.name}`;
  if (!target) return { field, before: "(absent)", after: describeParts(source.parts), verifiable: true };
  const added: string[] = [];
  const changed: string[] = [];
  const removed: string[] = [];
  for (const [part, fingerprint] of Object.entries(source.partFingerprints)) {
    const other = target.partFingerprints[part];
    if (other === undefined) added.push(part);
    else if (other !== fingerprint) changed.push(part);
  }
  for (const part of Object.keys(target.partFingerprints)) {
    if (!(part in source.partFingerprints)) removed.push(part);
  }
  const summary = [
    added.length ? `${added.length} part(s) to add` : "",
    changed.length ? `${changed.length} to change` : "",
    removed.length ? `${removed.length} only on the target` : "",
  ].filter(Boolean);
  return {
    field,
    before: describeParts(target.parts),
    after: summary.join(", ") || "differs",
    verifiable: true,
  };
}

/** The install options that decide which differences an install would resolve. */
export interface MatchOptions {
  /** 1: create new only (existing parts are left as they are); 2: create and update. */
  installMethod: number;
  /** 1: keep the target's layouts; 2: override them. */
  installOption: number;
}

/**
 * Whether the target already has what installing the source's object would give it: every part of
 * the source is on the target, alike, except the parts the install options leave alone (existing
 * parts under "create new only", existing layouts under "keep layout"). Parts only on the target
 * don't count: an install keeps them (or deactivates them, with InactivateUnusedFields).
 */
export function objectMatches(
  source: LivePackageObject,
  target: LivePackageObject | undefined,
  options: MatchOptions,
): boolean {
  if (!target) return false;
  for (const [part, fingerprint] of Object.entries(source.partFingerprints)) {
    const other = target.partFingerprints[part];
    if (other === undefined) return false;
    if (other === fingerprint) continue;
    if (options.installMethod === 1) continue;
    if (part.startsWith("layout:") && options.installOption === 1) continue;
    return false;
  }
  return true;
}

const CHAIN = ["create", "generate", "download", "upload", "install", "verify"] as const;

/**
 * Packages: promoted from the environment named by `packagesFrom` when any object they name differs
 * between it and the target. The steps are a chain: create → generate → download on the source, then
 * upload → install → verify on the target.
 */
export const packagePlanner: KindPlanner = {
  kind: KIND,
  order: 0,
  unverifiable: [],
  documents: { plural: "packages", keyOf: (pkg: DesiredPackage) => pkg.name },
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
  plan({ desired, live }: PlanInput): KindPlan {
    const result: KindPlan = { changes: [], steps: [], unmanaged: [] };
    if (desired.packages.length === 0 || !desired.packagesFrom) return result;
    const source = live.packageSource;
    if (!source)
      throw new PlanError(`packages need the state of ${desired.packagesFrom}, which was not read`);

    for (const pkg of desired.packages) {
      const planned = planPackage(pkg, source, live.packages, desired.environment.name, source.environment);
      if (!planned) continue;
      result.changes.push(planned.change);
      result.steps.push(...planned.steps);
    }
    return result;
  },
};

function planPackage(
  pkg: DesiredPackage,
  source: LivePackageSide,
  target: LivePackageSide,
  environment: string,
  sourceEnvironment: string,
): { change: Change; steps: Step[] } | undefined {
  // Global reports have no read call: they travel in the package but can't be compared.
  const unreadable = pkg.objects.flatMap((object) =>
    object.by === "guid" && object.type === "GlobalReport"
      ? [{ object, live: { guid: object.guid, type: object.type, name: `Global report ${object.guid}` } }]
      : [],
  );
  const objects = pkg.objects
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
  const differing = objects.filter(
    ({ object, live }) =>
      !objectMatches(live, target.objects[live.guid], {
        installMethod: object.install.InstallMethod,
        installOption: object.install.InstallOption,
      }),
  );
  if (differing.length === 0) return undefined;
  const everything = [...objects, ...unreadable];

  const change: Change = {
    id: `${KIND}/${pkg.name}`,
    kind: KIND,
    key: pkg.name,
    action: "promote",
    fields: differing.map(({ live }) => describeDifference(live, target.objects[live.guid])),
    notes: [
      `promoted from ${sourceEnvironment}`,
      ...(unreadable.length
        ? [`${unreadable.length} global report(s) travel along; they can't be read to compare`]
        : []),
    ],
    destructive: false,
    source: pkg.source,
  };
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
    },
    verify: {
      objects: objects.map(({ live }) => ({
        guid: live.guid,
        name: live.name,
        fingerprint: live.fingerprint,
      })),
    },
  };
  const steps = CHAIN.map(
    (verb, index): Step =>
      makeStep(
        change,
        `package.${verb}`,
        index < 3 ? sourceEnvironment : environment,
        input[verb],
        index === 0 ? [] : [`${change.id}#${CHAIN[index - 1]}`],
      ),
  );
  return { change, steps };
}

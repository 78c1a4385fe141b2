import type { DesiredPackage, DesiredPackageObject } from "../../manifest/index.ts";
import type { LivePackageObject, LivePackageSide } from "../../state/live-state.ts";
import type { Change, FieldChange, Step } from "../model.ts";
import { type KindPlan, type KindPlanner, PlanError, type PlanInput } from "./kind.ts";

export const KIND = "Package";

/** The GUID an object of the manifest names, resolved on the source. */
export function resolveObjectGuid(object: DesiredPackageObject, source: LivePackageSide): string | undefined {
  if (object.by === "guid") return object.guid;
  return source.applicationsByName[object.name.toLowerCase()];
}

function describeParts(parts: Record<string, number>): string {
  return Object.entries(parts)
    .filter(([, count]) => count > 0)
    .map(([part, count]) => `${count} ${part}`)
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
  const objects = pkg.objects.map((object) => {
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
  const differing = objects.filter(({ live }) => target.objects[live.guid]?.fingerprint !== live.fingerprint);
  if (differing.length === 0) return undefined;

  const change: Change = {
    id: `${KIND}/${pkg.name}`,
    kind: KIND,
    key: pkg.name,
    action: "promote",
    fields: differing.map(({ live }) => describeDifference(live, target.objects[live.guid])),
    notes: [`promoted from ${sourceEnvironment}`],
    destructive: false,
    source: pkg.source,
  };
  const input: Record<(typeof CHAIN)[number], Record<string, unknown>> = {
    create: {
      name: pkg.name,
      description: pkg.description ?? null,
      preparedBy: pkg.preparedBy ?? "egp",
      objects: objects.map(({ live }) => ({ guid: live.guid, type: live.type, name: live.name })),
    },
    generate: {},
    download: {},
    upload: {},
    install: {
      inactivateUnusedFields: pkg.inactivateUnusedFields,
      prefixInactivatedFields: pkg.prefixInactivatedFields,
      objects: objects.map(({ object, live }) => ({
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
  const steps = CHAIN.map((verb, index): Step => {
    const onSource = index < 3;
    return {
      id: `${change.id}#${verb}`,
      change: change.id,
      op: `package.${verb}`,
      environment: onSource ? sourceEnvironment : environment,
      dependsOn: index === 0 ? [] : [`${change.id}#${CHAIN[index - 1]}`],
      input: input[verb],
    };
  });
  return { change, steps };
}

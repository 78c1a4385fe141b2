import type { DesiredRelease } from "../../manifest/index.ts";
import type { LivePackageObject, LivePackageSide } from "../../state/live-state.ts";
import type { Change, Step } from "../model.ts";
import { describeDifference, objectMatches } from "../package-diff.ts";
import type { KindPlan } from "./kind.ts";
import { makeStep } from "./make-step.ts";
import { snapshotSteps } from "./package-snapshot.ts";
import { packageSteps } from "./package-steps.ts";

const KIND = packageSteps.kind;

/*
 * An environment that runs a release (`release:` in its file): each package of the release is
 * compared part by part, as recorded when the release was built, against the target's live
 * objects. A package that differs is fetched from the release store (its sha256 checked), the
 * target is snapshotted, and the stored bytes are uploaded, installed and verified against the
 * recorded fingerprints. No package is created on any other instance.
 */

type ReleasePackage = DesiredRelease["packages"][number];
type ReleaseObject = ReleasePackage["objects"][number];

/** A release's object as the planner's comparison reads a source's. */
function asLive(object: ReleaseObject): LivePackageObject {
  return {
    guid: object.guid.toLowerCase(),
    type: object.type,
    name: object.name,
    fingerprint: object.fingerprint ?? "",
    parts: object.counts ?? {},
    partFingerprints: object.parts ?? {},
    // A file written before part names were recorded names its parts by GUID.
    ...(object.names ? { names: object.names } : {}),
  };
}

const optionsOf = (object: ReleaseObject) => ({
  installMethod: object.installMethod,
  installOption: object.installOption,
});

export function planRelease(release: DesiredRelease, target: LivePackageSide, environment: string): KindPlan {
  const result: KindPlan = { changes: [], steps: [], unmanaged: [] };
  for (const pkg of release.packages) {
    const planned = planReleasePackage(release, pkg, target, environment);
    if (!planned) continue;
    result.changes.push(planned.change);
    result.steps.push(...planned.steps);
  }
  return result;
}

function planReleasePackage(
  release: DesiredRelease,
  pkg: ReleasePackage,
  target: LivePackageSide,
  environment: string,
): { change: Change; steps: Step[] } | undefined {
  const readable = pkg.objects.filter((object) => object.type !== "GlobalReport");
  const differing = readable.filter(
    (object) => !objectMatches(asLive(object), target.objects[object.guid.toLowerCase()], optionsOf(object)),
  );
  if (differing.length === 0) return undefined;
  const unreadable = pkg.objects.length - readable.length;
  const change: Change = {
    id: `${KIND}/${pkg.name}`,
    kind: KIND,
    key: pkg.name,
    action: "promote",
    fields: differing.map((object) =>
      describeDifference(asLive(object), target.objects[object.guid.toLowerCase()], optionsOf(object)),
    ),
    notes: [
      `release ${release.name} (built on ${release.from}, sha256 ${pkg.sha256.slice(0, 12)}…), from the release store`,
      ...(unreadable ? [`${unreadable} global report(s) travel along; they can't be read to compare`] : []),
    ],
    destructive: false,
    source: { file: release.file, line: 1, column: 1 },
  };
  const existing = readable
    .map((object) => target.objects[object.guid.toLowerCase()])
    .filter((o): o is LivePackageObject => o !== undefined);
  const created = readable
    .filter((object) => target.objects[object.guid.toLowerCase()] === undefined)
    .map((object) => ({ guid: object.guid.toLowerCase(), type: object.type, name: object.name }));
  const snapshot = pkg.snapshot && existing.length > 0;
  change.notes.push(
    snapshot
      ? `snapshot first: ${existing.map((o) => o.name).join(", ")} as ${environment} has them (undo with egp rollback)`
      : pkg.snapshot
        ? `no snapshot: none of the objects exists on ${environment} yet`
        : "no snapshot (install: { snapshot: false }): egp rollback can't undo this install",
  );
  const at = (verb: string) => `${change.id}#${verb}`;
  const steps: Step[] = [
    makeStep(change, "package.fetch", environment, {
      release: release.name,
      sha256: pkg.sha256,
      size: pkg.size,
    }),
  ];
  if (snapshot) steps.push(...snapshotSteps(change, environment, pkg.name, existing));
  steps.push(
    makeStep(
      change,
      "package.upload",
      environment,
      {},
      snapshot ? [at("fetch"), at("snapshot-download")] : [at("fetch")],
    ),
    makeStep(
      change,
      "package.install",
      environment,
      {
        inactivateUnusedFields: pkg.inactivateUnusedFields,
        prefixInactivatedFields: pkg.prefixInactivatedFields,
        objects: pkg.objects.map((o) => ({
          guid: o.guid.toLowerCase(),
          type: o.type,
          name: o.name,
          installMethod: o.installMethod,
          installOption: o.installOption,
          translationOption: o.translationOption,
        })),
        release: { from: release.from, created, release: release.name },
      },
      [at("upload")],
    ),
    makeStep(
      change,
      "package.verify",
      environment,
      {
        objects: readable.map((o) => ({
          guid: o.guid.toLowerCase(),
          name: o.name,
          fingerprint: o.fingerprint ?? "",
          parts: o.parts ?? {},
          installMethod: o.installMethod,
          installOption: o.installOption,
        })),
      },
      [at("install")],
    ),
  );
  return { change, steps };
}

import type { PlatformClient } from "../client/client.ts";
import { differs } from "./kinds/package.ts";
import type { LivePackageSide } from "./live-objects.ts";
import { type ModuleEntry, type ObjectRequest, readPackageObjects } from "./package-objects.ts";

/*
 * The reads of `egp compare`: the applications and sub-forms of two instances (all of them, or those
 * named), as metadata trees with ids mapped to GUIDs. Objects are matched by GUID (DESIGN §2). Each
 * side keeps details only for the objects that differ from the other's.
 */

export interface ComparedSides {
  from: LivePackageSide;
  to: LivePackageSide;
  /** Names given that neither instance has. */
  unknown: string[];
}

function chooser(names: readonly string[] | undefined) {
  const wanted = names ? new Set(names.map((n) => n.toLowerCase())) : undefined;
  return (module: ModuleEntry) => !wanted || wanted.has(module.name.toLowerCase());
}

const request = (module: ModuleEntry): ObjectRequest => ({ guid: module.guid, type: module.type });

export async function readForComparison(
  from: PlatformClient,
  to: PlatformClient,
  applications?: readonly string[],
): Promise<ComparedSides> {
  const chosen = chooser(applications);
  const namesSeen = new Set<string>();
  const see = (modules: readonly ModuleEntry[]) => {
    for (const module of modules) namesSeen.add(module.name.toLowerCase());
  };
  // As in a plan (state/kinds/package.ts): the target's trees are read while the source's are, once
  // the source has chosen its objects; details wait for both sides' fingerprints.
  const chosenOnSource = Promise.withResolvers<readonly ObjectRequest[]>();
  const [source, target] = await Promise.all([
    readPackageObjects(
      from,
      (_names, modules) => {
        see(modules);
        return modules.filter(chosen).map(request);
      },
      { deferDetails: true, onRequests: chosenOnSource.resolve },
    ),
    chosenOnSource.promise.then((fromSource) =>
      readPackageObjects(
        to,
        (_names, modules) => {
          see(modules);
          const guids = new Set(fromSource.map((r) => r.guid));
          return [...fromSource, ...modules.filter((m) => chosen(m) && !guids.has(m.guid)).map(request)];
        },
        { deferDetails: true },
      ),
    ),
  ]);
  source.describe((object) => differs(object, target.objects));
  target.describe((object) => {
    const counterpart = source.objects[object.guid];
    return counterpart !== undefined && counterpart.fingerprint !== object.fingerprint;
  });
  const unknown = (applications ?? []).filter((name) => !namesSeen.has(name.toLowerCase()));
  return {
    from: { objects: source.objects, applicationsByName: source.applicationsByName },
    to: { objects: target.objects, applicationsByName: target.applicationsByName },
    unknown,
  };
}

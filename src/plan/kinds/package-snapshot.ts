import type { LivePackageObject } from "../../state/live-state.ts";
import type { Change, Step } from "../model.ts";
import { makeStep } from "./make-step.ts";

/**
 * The target's objects packaged and downloaded before anything is uploaded: the file `egp rollback`
 * installs. A promotion and a release take it alike; the last step is `snapshot-download`.
 */
export function snapshotSteps(
  change: Change,
  environment: string,
  packageName: string,
  objects: readonly Pick<LivePackageObject, "guid" | "type" | "name" | "fingerprint">[],
): Step[] {
  const at = (verb: string) => `${change.id}#${verb}`;
  return [
    makeStep(change, "package.snapshot", environment, {
      name: `${packageName} (egp snapshot)`,
      objects: objects.map((o) => ({ guid: o.guid, type: o.type, name: o.name, fingerprint: o.fingerprint })),
    }),
    makeStep(change, "package.snapshot-generate", environment, {}, [at("snapshot")]),
    makeStep(change, "package.snapshot-download", environment, { objects: objects.map((o) => o.guid) }, [
      at("snapshot-generate"),
    ]),
  ];
}

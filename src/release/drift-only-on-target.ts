import type { DesiredState } from "../manifest/index.ts";
import { diffObject, type Plan, resolveObjectGuid } from "../plan/index.ts";
import type { LivePackageObject, LiveState } from "../state/index.ts";
import { type Finding, fingerprintOf, partLabelOf, REMEDIES, valueHashOf } from "./drift-finding.ts";

/*
 * What only the target has of the objects its packages deliver: an event rule, an action, a field,
 * a level someone made there, or an application's "(1)" duplicate a failed install left. A package
 * install adds and updates but never deletes, so the plan says nothing of them (an object whose
 * every source part is on the target matches); as findings they are named, and left to a person.
 */

interface Compared {
  pkg: string;
  source: LivePackageObject;
  differsFrom: string;
}

/** The objects the environment's packages (or its release) deliver, each with the package naming it. */
function comparedObjects(plan: Plan, live: LiveState, desired: DesiredState): Compared[] {
  if (desired.release) {
    const release = desired.release;
    return release.packages.flatMap((pkg) =>
      pkg.objects.map((object) => ({
        pkg: pkg.name,
        differsFrom: `release ${release.name}`,
        source: {
          guid: object.guid.toLowerCase(),
          type: object.type,
          name: object.name,
          fingerprint: object.fingerprint ?? "",
          parts: object.counts ?? {},
          partFingerprints: object.parts ?? {},
          ...(object.names ? { names: object.names } : {}),
        },
      })),
    );
  }
  const source = live.packageSource;
  if (!source) return [];
  return desired.packages.flatMap((pkg) =>
    pkg.objects.flatMap((object) => {
      const guid = resolveObjectGuid(object, source);
      const found = guid ? source.objects[guid.toLowerCase()] : undefined;
      const at = `${pkg.source.file}:${pkg.source.line} (from ${plan.sourceEnvironment ?? source.environment})`;
      return found ? [{ pkg: pkg.name, source: found, differsFrom: at }] : [];
    }),
  );
}

function partFindings(environment: string, compared: Compared, target: LivePackageObject): Finding[] {
  const object = `${compared.source.type} ${compared.source.name}`;
  return diffObject(compared.source, target)
    .parts.filter((part) => part.status === "onlyOnTarget")
    .map((part) => {
      const key = `${part.part}:${part.guid}`;
      const onlyActions = part.part === "rule" || part.part === "action";
      return {
        fingerprint: fingerprintOf(environment, "Package", object, key),
        environment,
        kind: "Package",
        object,
        label: `Package ${JSON.stringify(compared.pkg)} › ${object}`,
        part: key,
        partLabel: `${partLabelOf(part)}, only on the target`,
        severity: onlyActions ? "high" : "medium",
        valueHash: valueHashOf(target.partFingerprints[key]),
        differsFrom: compared.differsFrom,
        remedy: REMEDIES.byHand,
        onlyOnTarget: true,
      } satisfies Finding;
    });
}

const DUPLICATE = /^(.*) \(\d+\)$/;

/** Applications on the target named as a delivered one with a "(1)" after it: a second copy, not the object. */
function duplicateFindings(environment: string, live: LiveState, compared: readonly Compared[]): Finding[] {
  const modules = live.packages.catalogue?.modules ?? {};
  const delivered = new Map(
    compared.filter((c) => c.source.type === "Application").map((c) => [c.source.name.toLowerCase(), c]),
  );
  return Object.entries(modules).flatMap(([guid, module]) => {
    const base = DUPLICATE.exec(module.name)?.[1]?.toLowerCase();
    const of = base === undefined ? undefined : delivered.get(base);
    if (!of || of.source.guid === guid.toLowerCase()) return [];
    const object = `Application ${module.name}`;
    return [
      {
        fingerprint: fingerprintOf(environment, "Package", object, "(object)"),
        environment,
        kind: "Package",
        object,
        label: `Package ${JSON.stringify(of.pkg)} › ${object}`,
        part: "(object)",
        partLabel: `a duplicate of ${JSON.stringify(of.source.name)}, only on the target`,
        severity: "medium",
        valueHash: valueHashOf({ guid: guid.toLowerCase(), name: module.name }),
        differsFrom: of.differsFrom,
        remedy: REMEDIES.byHand,
        onlyOnTarget: true,
      } satisfies Finding,
    ];
  });
}

/** The findings of what only the target has, of every object its packages deliver. */
export function onlyOnTargetFindings(plan: Plan, live: LiveState, desired: DesiredState): Finding[] {
  const compared = comparedObjects(plan, live, desired);
  const parts = compared.flatMap((c) => {
    const target = live.packages.objects[c.source.guid];
    return target ? partFindings(plan.environment, c, target) : [];
  });
  return [...parts, ...duplicateFindings(plan.environment, live, compared)];
}

import type { FieldSource } from "../../manifest/errors.ts";
import type { DesiredPackage, DesiredPackageObject } from "../../manifest/index.ts";
import type { LivePackageObject, LivePackageSide } from "../../state/live-state.ts";
import type { PlanProblem } from "./kind.ts";
import { packageConflicts } from "./package-conflicts.ts";
import {
  type AddedDependency,
  carriedBy,
  type DependencyResult,
  missingMessage,
  packageDependencies,
} from "./package-dependencies.ts";
import { dependenciesOf } from "./package-order.ts";

/*
 * The checks a package's install would fail, made before any step is planned (DESIGN §3): its
 * dependencies (package-dependencies.ts) and its name and alias clashes with the target
 * (package-conflicts.ts). Both see the package as the plan installs it, dependencies added.
 */

/** A package's objects as the source has them, each with its manifest object. */
export interface ResolvedObject {
  object: DesiredPackageObject;
  live: LivePackageObject;
  /** Set for an object `includeDependencies` added: which object needs it, through which field. */
  dependency?: { of: string; field: string };
}

export interface PackageContext {
  /** Every Package document of the plan, for `dependsOn`. */
  packages: readonly DesiredPackage[];
  /** Resolves a package's objects on the source, leaving out those it lacks. */
  resolve(pkg: DesiredPackage): LivePackageObject[];
  source: LivePackageSide;
  target: LivePackageSide;
  environment: string;
}

export function dependenciesFor(
  pkg: DesiredPackage,
  objects: readonly LivePackageObject[],
  context: PackageContext,
): DependencyResult {
  const before = carriedBy(dependenciesOf(pkg, context.packages).flatMap((p) => context.resolve(p)));
  const others = context.packages
    .filter((p) => p !== pkg)
    .map((p) => ({ name: p.name, carried: carriedBy(context.resolve(p)) }));
  return packageDependencies({
    objects,
    source: context.source,
    target: context.target,
    before,
    others,
    include: pkg.includeDependencies !== undefined,
  });
}

/** An added dependency as an object of the package: by GUID, with the package's install options. */
export function addedObject(pkg: DesiredPackage, added: AddedDependency): ResolvedObject {
  const source = pkg.includeDependencies ?? { ...pkg.source, path: "" };
  const object: DesiredPackageObject = {
    by: "guid",
    type: added.object.type,
    guid: added.object.guid,
    install: pkg.install,
    source,
  };
  return { object, live: added.object, dependency: { of: added.of, field: added.field } };
}

/** What the install writes: an object that exists on the target under "create new only" is left alone. */
export function written(objects: readonly ResolvedObject[], target: LivePackageSide): LivePackageObject[] {
  return objects
    .filter(({ object, live }) => !(object.install.method === "createNew" && target.objects[live.guid]))
    .map(({ live }) => live);
}

function at(source: { file: string; line: number; column: number }, path = ""): FieldSource {
  return { file: source.file, line: source.line, column: source.column, path };
}

/** The dependencies nothing provides and the clashes with the target, at the document's positions. */
export function packageProblems(
  pkg: DesiredPackage,
  listed: readonly ResolvedObject[],
  context: PackageContext,
): PlanProblem[] {
  const subject = { kind: "Package", key: pkg.name } as const;
  const deps = dependenciesFor(pkg, written(listed, context.target), context);
  const problems: PlanProblem[] = deps.missing.map((missing) => ({
    ...at(pkg.source),
    message: missingMessage(pkg, missing, context.environment),
    subject,
  }));
  const objects = [...listed, ...deps.added.map((added) => addedObject(pkg, added))];
  const conflicts = packageConflicts({
    objects: written(objects, context.target),
    target: context.target,
    environment: context.environment,
  });
  for (const conflict of conflicts) {
    const object = objects.find(({ live }) => live.guid === conflict.object)?.object;
    problems.push({
      ...at(object?.source ?? pkg.source),
      message: `package ${JSON.stringify(pkg.name)}: ${conflict.message}`,
      subject,
    });
  }
  return problems;
}

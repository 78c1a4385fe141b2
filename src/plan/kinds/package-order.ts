import type { DesiredPackage } from "../../manifest/index.ts";
import type { PlanProblem } from "./kind.ts";

/*
 * `dependsOn` between Package documents: a package is installed after those it names, in one plan.
 * A name no Package document of the plan has, and a loop, are refused at the documents' positions.
 */

const key = (name: string) => name.toLowerCase();

function byName(packages: readonly DesiredPackage[]): Map<string, DesiredPackage> {
  return new Map(packages.map((p) => [key(p.name), p]));
}

/** The packages `pkg` depends on, directly or through others, in the plan (itself left out). */
export function dependenciesOf(pkg: DesiredPackage, packages: readonly DesiredPackage[]): DesiredPackage[] {
  const all = byName(packages);
  const seen = new Set<string>([key(pkg.name)]);
  const out: DesiredPackage[] = [];
  const queue = [pkg];
  for (let next = queue.shift(); next; next = queue.shift()) {
    for (const { name } of next.dependsOn ?? []) {
      const found = all.get(key(name));
      if (!found || seen.has(key(name))) continue;
      seen.add(key(name));
      out.push(found);
      queue.push(found);
    }
  }
  return out;
}

/** Unknown names and loops, each at the `dependsOn` entry that makes it. */
export function orderProblems(packages: readonly DesiredPackage[]): PlanProblem[] {
  const all = byName(packages);
  const problems: PlanProblem[] = [];
  for (const pkg of packages) {
    for (const { name, source } of pkg.dependsOn ?? []) {
      if (all.has(key(name))) continue;
      problems.push({
        ...source,
        message: `${JSON.stringify(name)} is not a Package document of this plan`,
        subject: { kind: "Package", key: pkg.name },
      });
    }
  }
  const reported = new Set<string>();
  for (const pkg of packages) {
    const loop = loopThrough(pkg, all);
    if (!loop || reported.has(key(pkg.name))) continue;
    for (const member of loop) reported.add(key(member.name));
    const names = [...loop, pkg].map((p) => JSON.stringify(p.name)).join(" → ");
    for (const [index, member] of loop.entries()) {
      const after = loop[index + 1] ?? pkg;
      const entry = (member.dependsOn ?? []).find((d) => key(d.name) === key(after.name));
      if (!entry) continue;
      problems.push({
        ...entry.source,
        message: `makes a loop: ${names}; a package can only be installed after the packages it depends on`,
        subject: { kind: "Package", key: member.name },
      });
    }
  }
  return problems;
}

/** A path of packages from `start` back to `start` through dependsOn, if there is one. */
function loopThrough(start: DesiredPackage, all: Map<string, DesiredPackage>): DesiredPackage[] | undefined {
  const path: DesiredPackage[] = [];
  const done = new Set<string>();
  const visit = (pkg: DesiredPackage): boolean => {
    path.push(pkg);
    for (const { name } of pkg.dependsOn ?? []) {
      const next = all.get(key(name));
      if (!next) continue;
      if (next === start) return true;
      if (done.has(key(name)) || path.includes(next)) continue;
      if (visit(next)) return true;
    }
    done.add(key(pkg.name));
    path.pop();
    return false;
  };
  return visit(start) ? path : undefined;
}

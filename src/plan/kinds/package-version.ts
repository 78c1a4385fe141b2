import type { SourceLocation } from "../../manifest/errors.ts";
import type { PlanProblem } from "./kind.ts";

/*
 * Packages are not backward compatible between platform versions (the platform's packaging guide),
 * and an install can't be undone: a package built on a newer platform is refused before it is
 * planned onto an older one. The same version, or an older source, passes.
 */

/** Orders dotted versions by their numbers (6.9.1 < 6.14.0); text around the numbers is ignored. */
export function compareVersions(a: string, b: string): number {
  const numbers = (v: string) => (v.match(/\d+/g) ?? []).map(Number);
  const [x, y] = [numbers(a), numbers(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i += 1) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

export interface VersionSides {
  /** Where the packages were built: an environment, or a release built on one. */
  built: { what: string; version?: string | undefined };
  target: { environment: string; version?: string | undefined };
  at: SourceLocation & { path?: string };
}

export function versionProblem({ built, target, at }: VersionSides): PlanProblem | undefined {
  if (!built.version || !target.version || compareVersions(built.version, target.version) <= 0)
    return undefined;
  return {
    ...at,
    path: at.path ?? "",
    message:
      `${built.what} was built on platform ${built.version}, and ${target.environment} runs ${target.version}: ` +
      `packages are not backward compatible, so egp does not install it; upgrade ${target.environment} first`,
  };
}

import {
  type EnvironmentConfig,
  environmentOf,
  type ManifestIssue,
  readRepository,
} from "../manifest/index.ts";
import { type Comparison, compareInstances } from "../plan/index.ts";
import { readForComparison } from "../state/compare-read.ts";
import type { OpenEnvironment } from "./plan-environment.ts";

/*
 * `egp compare` for the CLI and a library caller: the applications and sub-forms of two
 * environments, part by part (docs/promotion.md). Read-only; only the two environment files
 * matter, not the manifests.
 */

export interface CompareOptions {
  /** The repository: the two environments' files. */
  dir: string;
  /** The reference environment (A), and the environment compared with it (B). */
  from: string;
  to: string;
  open: OpenEnvironment;
  /** Only these applications or sub-forms, by name. */
  applications?: readonly string[];
  now?: () => Date;
}

export interface EnvironmentComparison {
  comparison: Comparison;
  /** Names of `applications` neither environment has: the comparison leaves them out. */
  unknown: string[];
  /** The environment files' warnings. */
  issues: ManifestIssue[];
}

export async function compareEnvironments(options: CompareOptions): Promise<EnvironmentComparison> {
  const bare = { ...(await readRepository(options.dir)), manifests: [] };
  const issues: ManifestIssue[] = [];
  const config = (name: string): EnvironmentConfig => {
    const { state, warnings } = environmentOf(bare, name);
    issues.push(...warnings);
    return state.environment;
  };
  const [from, to] = [config(options.from), config(options.to)];
  const [a, b] = await Promise.all([options.open(from), options.open(to)]);
  const sides = await readForComparison(a, b, options.applications);
  const comparison = compareInstances({
    from: { environment: from.name, ...sides.from },
    to: { environment: to.name, ...sides.to },
    createdAt: (options.now?.() ?? new Date()).toISOString(),
  });
  return { comparison, unknown: sides.unknown, issues };
}

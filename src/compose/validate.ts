import { DEFAULT_MAX_ACK_DAYS, readDriftAcks } from "../manifest/drift-ack.ts";
import { readFreezeExceptions } from "../manifest/freeze-exception.ts";
import {
  environmentNames,
  type LoadResult,
  loadProject,
  loadRepository,
  ManifestError,
  type ManifestIssue,
} from "../manifest/index.ts";
import { checkStoreSpec } from "../store/open-store.ts";

/*
 * `egp validate` for the CLI and a library caller: the environment files and manifests parsed and
 * validated offline, with egp.yaml (the release store's address) and the freeze exceptions.
 */

async function issuesOf(read: () => Promise<unknown>): Promise<ManifestIssue[]> {
  try {
    await read();
    return [];
  } catch (error) {
    if (error instanceof ManifestError) return [...error.issues];
    throw error;
  }
}

/** The issues of egp.yaml, of the freeze exceptions and of the drift acknowledgements; none when right. */
async function projectIssues(dir: string): Promise<ManifestIssue[]> {
  const known = new Set(await environmentNames(dir));
  const project = await loadProject(dir).catch(() => undefined);
  const maxDays = project?.drift?.maxAcknowledgementDays ?? DEFAULT_MAX_ACK_DAYS;
  return [
    ...(await issuesOf(() => loadProject(dir, { checkStore: checkStoreSpec }))),
    ...(await issuesOf(() => readFreezeExceptions(dir, known.size > 0 ? known : undefined))),
    // Every acknowledgement names an environment of the repository: one that names none would never match.
    ...(await issuesOf(() => readDriftAcks(dir, { knownEnvironments: known, maxDays, now: new Date() }))),
  ];
}

/**
 * The repository at `dir` validated, egp.yaml's and the exceptions' issues first. Without `env`
 * nothing is connected to, so an unset `${VAR}` is no error (a lint job needs no secrets); with it
 * that environment's variables are checked too. A repository that can't be read rejects.
 */
export async function validateProject(dir: string, options: { env?: string } = {}): Promise<LoadResult> {
  const unsetVariables = options.env === undefined ? "keep" : "error";
  const [result, issues] = await Promise.all([
    loadRepository(dir, { env: options.env, unsetVariables }),
    projectIssues(dir),
  ]);
  if (issues.length === 0) return result;
  const errors = [...issues, ...(result.ok ? [] : result.errors)];
  return { ok: false, errors, warnings: result.warnings, stats: result.stats };
}

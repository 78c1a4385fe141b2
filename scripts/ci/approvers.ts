import { setOutputs } from "./actions.ts";
import { githubFrom, repoFrom, runMain } from "./context.ts";
import type { GitHub } from "./github.ts";
import { type Repo, repoPath } from "./repo.ts";

/*
 * Who approved this run's deployment to a GitHub environment, from GitHub's run approvals
 * (GET /repos/{owner}/{repo}/actions/runs/{run_id}/approvals), as the `approvers` output:
 * comma-separated logins, which the apply step gives egp as EGP_APPROVERS. egp records them in the
 * audit record and matches them against nothing: the approval is GitHub's environment protection.
 *
 *   node scripts/ci/approvers.ts      (EGP_CI_ENVIRONMENT: the job's GitHub environment;
 *                                      GITHUB_TOKEN with actions: read, GITHUB_REPOSITORY, GITHUB_RUN_ID)
 */

export interface Approval {
  state: string;
  environments: { name: string }[];
  user: { login: string } | null;
}

/** The logins that approved `environment` in this run, each once, in the order GitHub lists them. */
export function approversIn(approvals: readonly Approval[], environment: string): string[] {
  const logins = approvals
    .filter((a) => a.state === "approved" && a.environments.some((e) => e.name === environment))
    .flatMap((a) => (a.user?.login ? [a.user.login] : []));
  return [...new Set(logins)];
}

export async function approversOfRun(github: GitHub, repo: Repo, runId: string, environment: string) {
  if (!/^\d+$/.test(runId)) throw new Error(`GITHUB_RUN_ID "${runId}" is not a run id`);
  const approvals = await github.request<Approval[]>(
    "GET",
    `${repoPath(repo)}/actions/runs/${runId}/approvals`,
  );
  return approversIn(approvals, environment);
}

export async function main(env: Record<string, string | undefined> = process.env): Promise<number> {
  const environment = env.EGP_CI_ENVIRONMENT;
  if (!environment) throw new Error("EGP_CI_ENVIRONMENT is not set: give the step the job's environment");
  const approvers = await approversOfRun(
    githubFrom(env),
    repoFrom(undefined, env),
    env.GITHUB_RUN_ID ?? "",
    environment,
  );
  setOutputs({ approvers: approvers.join(",") }, env);
  return 0;
}

if (import.meta.main) runMain(() => main());

import { parseArgs } from "node:util";
import { annotation, appendSummary, pullRequestNumber, runUrl } from "./actions.ts";
import { buildPlanComment, planMarker, succeeded } from "./comment-body.ts";
import { githubFrom, readRun, repoFrom, runMain } from "./context.ts";
import { upsertComment } from "./sticky-comment.ts";

/*
 * Posts one environment's plan as the sticky comment of the pull request, or updates it:
 *
 *   node scripts/ci/post-plan-comment.ts --env prod --exit-code 2 --stdout FILE --stderr FILE
 *     [--artifact egp-plan-prod] [--scope DIR] [--pr N] [--repo owner/name] [--author LOGIN]
 *     [--note TEXT]
 *
 * `--author` names the login the token writes as (a GitHub App's `name[bot]`); by default it is
 * found by GET /user, or is github-actions[bot] for a run's GITHUB_TOKEN. Only that login's comment
 * is edited. `--note` is a line put above the plan (a preview that ran without credentials).
 *
 * Then exits 1 if egp did (an exit code other than 0 or 2), so that a failed plan fails the job
 * after saying why on the pull request. Without a pull request (a manual run) the comment goes to
 * the job summary instead.
 */

const OPTIONS = {
  env: { type: "string" },
  "exit-code": { type: "string" },
  stdout: { type: "string" },
  stderr: { type: "string" },
  artifact: { type: "string" },
  scope: { type: "string" },
  pr: { type: "string" },
  repo: { type: "string" },
  author: { type: "string" },
  note: { type: "string" },
} as const;

function prNumber(flag: string | undefined): number | undefined {
  if (flag === undefined || flag === "") return pullRequestNumber();
  if (!/^[1-9]\d*$/.test(flag)) throw new Error(`--pr "${flag}" is not a pull request number`);
  return Number(flag);
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<number> {
  const { values: flags } = parseArgs({ args: argv, options: OPTIONS, strict: true });
  const run = readRun(flags);
  const body = buildPlanComment(run, {
    runUrl: runUrl(),
    artifact: flags.artifact || undefined,
    scope: flags.scope,
    note: flags.note || undefined,
  });
  const pr = prNumber(flags.pr);
  if (pr === undefined) {
    const where = appendSummary(body) ? "the job summary" : "nowhere (no GITHUB_STEP_SUMMARY)";
    process.stdout.write(`no pull request in this event: the plan of ${run.environment} went to ${where}\n`);
  } else {
    const marker = planMarker(run.environment, flags.scope);
    const result = await upsertComment(githubFrom(), repoFrom(flags.repo), pr, marker, body, {
      author: flags.author || process.env.EGP_COMMENT_AUTHOR || undefined,
    });
    process.stdout.write(`plan comment for ${run.environment} on #${pr}: ${result.action} (${result.id})\n`);
  }
  if (succeeded(run.exitCode)) return 0;
  process.stdout.write(
    annotation("error", `egp plan for ${run.environment} failed with exit code ${run.exitCode}`),
  );
  return 1;
}

if (import.meta.main) runMain(main);

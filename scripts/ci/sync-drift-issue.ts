import { parseArgs } from "node:util";
import { annotation, appendSummary, runUrl } from "./actions.ts";
import { buildDriftIssueBody, driftIssueTitle, driftMarker, driftResolvedComment } from "./comment-body.ts";
import { githubFrom, readRun, repoFrom, runMain } from "./context.ts";
import { syncDriftIssue } from "./drift-issue.ts";

/*
 * Turns one `egp drift` result into the state of the environment's drift issue:
 *
 *   node scripts/ci/sync-drift-issue.ts --env prod --exit-code 2 --stdout FILE --stderr FILE
 *     [--label egp-drift] [--scope DIR] [--repo owner/name]
 *
 * exit 2 opens the issue or updates the open one; exit 0 closes it; anything else fails loudly and
 * leaves the issue as it is.
 */

export const DEFAULT_LABEL = "egp-drift";

const OPTIONS = {
  env: { type: "string" },
  "exit-code": { type: "string" },
  stdout: { type: "string" },
  stderr: { type: "string" },
  label: { type: "string", default: DEFAULT_LABEL },
  scope: { type: "string" },
  repo: { type: "string" },
} as const;

export async function main(argv: string[] = process.argv.slice(2)): Promise<number> {
  const { values: flags } = parseArgs({ args: argv, options: OPTIONS, strict: true });
  const run = readRun(flags);
  const url = runUrl();
  const env = run.environment;
  const result = await syncDriftIssue(githubFrom(), repoFrom(flags.repo), {
    exitCode: run.exitCode,
    label: flags.label,
    marker: driftMarker(env, flags.scope),
    title: driftIssueTitle(env),
    body: () => buildDriftIssueBody(run, { runUrl: url, scope: flags.scope }),
    resolved: driftResolvedComment(env, url),
  });
  const { decision } = result;
  switch (decision.action) {
    case "open":
    case "update":
      appendSummary(buildDriftIssueBody(run, { runUrl: url, scope: flags.scope }));
      process.stdout.write(
        `${env} has drifted: issue #${result.issue} ${decision.action === "open" ? "opened" : "updated"}\n`,
      );
      return 0;
    case "close":
      process.stdout.write(`${env} has no drift: closed issue(s) #${decision.issues.join(", #")}\n`);
      return 0;
    case "none":
      process.stdout.write(`${env} has no drift, and no drift issue is open\n`);
      return 0;
    case "fail":
      process.stdout.write(annotation("error", `${env}: ${decision.reason}`));
      return 1;
  }
}

if (import.meta.main) runMain(main);

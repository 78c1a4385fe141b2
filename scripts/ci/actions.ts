import { randomUUID } from "node:crypto";
import { appendFileSync, readFileSync } from "node:fs";

/*
 * The GitHub Actions runner's file and stdout protocols (outputs, job summary, annotations) and the
 * facts of the run it puts in the environment. Outside Actions the files are absent and the writes
 * are skipped, so that the scripts also run by hand.
 */

type Env = Record<string, string | undefined>;

/** Escapes data for a workflow command, so that a message can't end the command or start another. */
export function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** An `::error::` or `::warning::` annotation line, shown on the run's summary page. */
export function annotation(level: "error" | "warning" | "notice", message: string, title?: string): string {
  const props = title ? ` title=${escapeData(title).replace(/:/g, "%3A").replace(/,/g, "%2C")}` : "";
  return `::${level}${props}::${escapeData(message)}\n`;
}

/** One `name=value` entry for $GITHUB_OUTPUT; a multi-line value gets a heredoc delimiter. */
export function outputEntry(name: string, value: string): string {
  if (!value.includes("\n") && !value.includes("\r")) return `${name}=${value}\n`;
  let delimiter = `egp_${randomUUID()}`;
  while (value.includes(delimiter)) delimiter = `egp_${randomUUID()}`;
  return `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
}

export function setOutputs(values: Record<string, string>, env: Env = process.env): void {
  const file = env.GITHUB_OUTPUT;
  if (!file) return;
  appendFileSync(
    file,
    Object.entries(values)
      .map(([name, value]) => outputEntry(name, value))
      .join(""),
  );
}

export function appendSummary(markdown: string, env: Env = process.env): boolean {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return false;
  appendFileSync(file, markdown.endsWith("\n") ? markdown : `${markdown}\n`);
  return true;
}

/** The page of this workflow run, when the runner says which it is. */
export function runUrl(env: Env = process.env): string | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_RUN_ID: run } = env;
  return server && repo && run ? `${server}/${repo}/actions/runs/${run}` : undefined;
}

/** The pull request the triggering event is about, if any. */
export function pullRequestNumber(env: Env = process.env): number | undefined {
  if (!env.GITHUB_EVENT_PATH) return undefined;
  const event = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, "utf8")) as {
    pull_request?: { number?: number };
    issue?: { number?: number; pull_request?: unknown };
  };
  if (typeof event.pull_request?.number === "number") return event.pull_request.number;
  if (event.issue?.pull_request && typeof event.issue.number === "number") return event.issue.number;
  return undefined;
}

import { type GitHub, GitHubError } from "./github.ts";
import { type Repo, repoPath } from "./repo.ts";

/*
 * The drift issue of one environment: open while `egp drift` finds drift, closed by the first check
 * that finds none. It is found among the open issues carrying the label by the marker its body
 * starts with, so that several environments share the label and each has its own issue.
 */

export interface Issue {
  number: number;
  body?: string | null;
  state?: string;
  /** Set by GitHub on pull requests, which the issues list returns too. */
  pull_request?: unknown;
}

export type DriftDecision =
  | { action: "open" }
  | { action: "update"; issue: number }
  | { action: "close"; issues: number[] }
  | { action: "none" }
  | { action: "fail"; reason: string };

/**
 * Pure: exit 2 opens the issue or updates the open one; exit 0 closes what is open; any other exit
 * leaves the issues alone and fails, because a check that could not run says nothing about drift.
 */
export function decideDriftIssue(exitCode: number, open: readonly number[]): DriftDecision {
  if (exitCode === 2)
    return open[0] === undefined ? { action: "open" } : { action: "update", issue: open[0] };
  if (exitCode === 0) return open.length ? { action: "close", issues: [...open] } : { action: "none" };
  return {
    action: "fail",
    reason: `egp drift exited with code ${exitCode}; the drift issue is left as it is`,
  };
}

/** Open issues with the label whose body starts with the marker, oldest first. */
export async function findDriftIssues(
  github: GitHub,
  repo: Repo,
  label: string,
  marker: string,
): Promise<number[]> {
  const issues = await github.paginate<Issue>(
    `${repoPath(repo)}/issues?state=open&labels=${encodeURIComponent(label)}&per_page=100`,
  );
  return issues
    .filter((issue) => !issue.pull_request && issue.body?.startsWith(marker))
    .map((issue) => issue.number)
    .sort((a, b) => a - b);
}

/** How a label egp creates looks; a label that is already there is left as its owners made it. */
export const LABEL_STYLE = {
  color: "d93f0b",
  description: "egp drift check: an instance differs from its manifests",
};

/**
 * Creates the label when the repository lacks it. GitHub creates an unknown label on a new issue only
 * for a token with push access; for any other token it drops the label silently, and an issue without
 * it is never found again, so every drift would open another issue.
 */
export async function ensureLabel(github: GitHub, repo: Repo, label: string): Promise<void> {
  const base = repoPath(repo);
  const exists = await github.request("GET", `${base}/labels/${encodeURIComponent(label)}`).then(
    () => true,
    (error: unknown) => {
      if (error instanceof GitHubError && error.status === 404) return false;
      throw error;
    },
  );
  if (exists) return;
  await github.request("POST", `${base}/labels`, { name: label, ...LABEL_STYLE }).catch((error: unknown) => {
    // Another environment's check, at the same moment, made it first.
    if (!(error instanceof GitHubError && error.status === 422)) throw error;
  });
}

export interface DriftIssueInput {
  exitCode: number;
  label: string;
  marker: string;
  title: string;
  /** Body of an opened or updated issue; built only when needed. */
  body: () => string;
  /** Comment left on an issue that is closed. */
  resolved: string;
}

export interface DriftIssueResult {
  decision: DriftDecision;
  /** The issue opened or updated, if any. */
  issue?: number;
}

export async function syncDriftIssue(
  github: GitHub,
  repo: Repo,
  input: DriftIssueInput,
): Promise<DriftIssueResult> {
  // A check that could not run decides nothing, so GitHub is not even asked.
  if (input.exitCode !== 0 && input.exitCode !== 2) return { decision: decideDriftIssue(input.exitCode, []) };
  const decision = decideDriftIssue(
    input.exitCode,
    await findDriftIssues(github, repo, input.label, input.marker),
  );
  const base = repoPath(repo);
  switch (decision.action) {
    case "open": {
      await ensureLabel(github, repo, input.label);
      const created = await github.request<Issue>("POST", `${base}/issues`, {
        title: input.title,
        body: input.body(),
        labels: [input.label],
      });
      return { decision, issue: created.number };
    }
    case "update":
      await github.request("PATCH", `${base}/issues/${decision.issue}`, {
        title: input.title,
        body: input.body(),
      });
      return { decision, issue: decision.issue };
    case "close":
      for (const issue of decision.issues) {
        await github.request("POST", `${base}/issues/${issue}/comments`, { body: input.resolved });
        await github.request("PATCH", `${base}/issues/${issue}`, {
          state: "closed",
          state_reason: "completed",
        });
      }
      return { decision };
    default:
      return { decision };
  }
}

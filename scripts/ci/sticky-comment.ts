import { type GitHub, GitHubError } from "./github.ts";
import { type Repo, repoPath } from "./repo.ts";

/*
 * One comment per environment on a pull request, edited in place on every push instead of adding a
 * new one: found by the hidden marker its body starts with, among the comments the token's own
 * identity wrote. Anyone can write a comment that starts with the marker; the bot edits only its own.
 */

interface IssueComment {
  id: number;
  body?: string;
  user?: { login?: string } | null;
}

export interface UpsertResult {
  action: "created" | "updated" | "unchanged";
  id: number;
}

/** Who an Actions run's GITHUB_TOKEN writes as; that token may not read GET /user. */
export const ACTIONS_BOT = "github-actions[bot]";

/**
 * The login the token writes comments as: `author` when the caller names it (a GitHub App's bot),
 * else GET /user (a personal token), else, where that read is refused (GITHUB_TOKEN), the Actions bot.
 */
export async function tokenIdentity(github: GitHub, author?: string): Promise<string> {
  if (author) return author;
  try {
    const user = await github.request<{ login?: string }>("GET", "/user");
    if (user?.login) return user.login;
  } catch (error) {
    if (!(error instanceof GitHubError) || ![401, 403, 404].includes(error.status)) throw error;
  }
  return ACTIONS_BOT;
}

export async function findComment(
  github: GitHub,
  repo: Repo,
  issue: number,
  marker: string,
  author: string,
): Promise<IssueComment | undefined> {
  const comments = await github.paginate<IssueComment>(
    `${repoPath(repo)}/issues/${issue}/comments?per_page=100`,
  );
  const own = (comment: IssueComment) => comment.user?.login?.toLowerCase() === author.toLowerCase();
  // The oldest one wins if a race ever made two, so that the comment people link to stays current.
  return comments.find((comment) => own(comment) && comment.body?.startsWith(marker));
}

/** Updates the token's own comment whose body starts with `marker`, or creates it. */
export async function upsertComment(
  github: GitHub,
  repo: Repo,
  issue: number,
  marker: string,
  body: string,
  options: { author?: string } = {},
): Promise<UpsertResult> {
  if (!body.startsWith(marker)) throw new Error("the comment body must start with its marker");
  const author = await tokenIdentity(github, options.author);
  const existing = await findComment(github, repo, issue, marker, author);
  if (existing) {
    if (existing.body === body) return { action: "unchanged", id: existing.id };
    await github.request("PATCH", `${repoPath(repo)}/issues/comments/${existing.id}`, { body });
    return { action: "updated", id: existing.id };
  }
  const created = await github.request<IssueComment>("POST", `${repoPath(repo)}/issues/${issue}/comments`, {
    body,
  });
  return { action: "created", id: created.id };
}

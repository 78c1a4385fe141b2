import type { GitHub } from "./github.ts";
import { type Repo, repoPath } from "./repo.ts";

/*
 * One comment per environment on a pull request, edited in place on every push instead of adding a
 * new one: found by the hidden marker its body starts with.
 */

interface IssueComment {
  id: number;
  body?: string;
}

export interface UpsertResult {
  action: "created" | "updated" | "unchanged";
  id: number;
}

export async function findComment(
  github: GitHub,
  repo: Repo,
  issue: number,
  marker: string,
): Promise<IssueComment | undefined> {
  const comments = await github.paginate<IssueComment>(
    `${repoPath(repo)}/issues/${issue}/comments?per_page=100`,
  );
  // The oldest one wins if a race ever made two, so that the comment people link to stays current.
  return comments.find((comment) => comment.body?.startsWith(marker));
}

/** Updates the comment whose body starts with `marker`, or creates it. */
export async function upsertComment(
  github: GitHub,
  repo: Repo,
  issue: number,
  marker: string,
  body: string,
): Promise<UpsertResult> {
  if (!body.startsWith(marker)) throw new Error("the comment body must start with its marker");
  const existing = await findComment(github, repo, issue, marker);
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

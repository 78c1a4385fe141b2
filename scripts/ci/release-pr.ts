import type { GitHub } from "./github.ts";
import { type Repo, repoPath } from "./repo.ts";

/*
 * Commits one file (a release's record, releases/NAME.yaml) to a new branch through GitHub's git
 * data API, and opens a pull request for it. The API makes the commit, so the runner needs no push
 * rights of its own, and GitHub signs it.
 */

export interface ReleasePullRequest {
  /** The release's name: the branch is `egp/release/NAME`. */
  name: string;
  /** The file's path in the repository, with forward slashes. */
  path: string;
  content: string;
  /** The branch the pull request goes to. */
  base: string;
  body: string;
}

interface Ref {
  object: { sha: string };
}

export const releaseBranch = (name: string) => `egp/release/${name}`;

const encodeRef = (ref: string) => ref.split("/").map(encodeURIComponent).join("/");

/** Returns the pull request's number and address. */
export async function openReleasePullRequest(
  github: GitHub,
  repo: Repo,
  pr: ReleasePullRequest,
): Promise<{ number: number; url: string }> {
  const at = repoPath(repo);
  const base = await github.request<Ref>("GET", `${at}/git/ref/heads/${encodeRef(pr.base)}`);
  const parent = await github.request<{ tree: { sha: string } }>(
    "GET",
    `${at}/git/commits/${base.object.sha}`,
  );
  const tree = await github.request<{ sha: string }>("POST", `${at}/git/trees`, {
    base_tree: parent.tree.sha,
    tree: [{ path: pr.path, mode: "100644", type: "blob", content: pr.content }],
  });
  const commit = await github.request<{ sha: string }>("POST", `${at}/git/commits`, {
    message: `Release ${pr.name}`,
    tree: tree.sha,
    parents: [base.object.sha],
  });
  const branch = releaseBranch(pr.name);
  await github.request("POST", `${at}/git/refs`, { ref: `refs/heads/${branch}`, sha: commit.sha });
  const opened = await github.request<{ number: number; html_url: string }>("POST", `${at}/pulls`, {
    title: `Release ${pr.name}`,
    head: branch,
    base: pr.base,
    body: pr.body,
  });
  return { number: opened.number, url: opened.html_url };
}

/** A repository, as GITHUB_REPOSITORY names it (`owner/name`). */
export interface Repo {
  owner: string;
  repo: string;
}

export function parseRepo(slug: string): Repo {
  const [owner, repo, ...rest] = slug.split("/");
  if (!owner || !repo || rest.length > 0) throw new Error(`not an owner/name repository: "${slug}"`);
  return { owner, repo };
}

export function repoPath({ owner, repo }: Repo): string {
  return `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}`;
}

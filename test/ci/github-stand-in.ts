import Fastify, { type FastifyReply, type FastifyRequest } from "fastify";

/*
 * A local stand-in for the few GitHub REST endpoints the CI glue calls, on 127.0.0.1:0. It keeps
 * issues (pull requests among them, as GitHub does) and comments in memory, pages lists with Link
 * headers, refuses a wrong token with 401 and a body over 65,536 characters with 422, like GitHub.
 */

export const BODY_LIMIT = 65_536;

export interface StoredIssue {
  number: number;
  title: string;
  body: string | null;
  state: "open" | "closed";
  state_reason: string | null;
  labels: string[];
  pull_request?: { url: string };
}

export interface StoredComment {
  id: number;
  issue: number;
  body: string;
  /** Who wrote it (`user.login`). */
  author: string;
  created: number;
  updated: number;
}

export interface Recorded {
  method: string;
  url: string;
  authorization?: string;
}

export interface GitHubStandIn {
  url: string;
  token: string;
  repository: string;
  issues: StoredIssue[];
  /** The repository's labels; a new issue keeps only labels that exist (`dropUnknownLabels`). */
  labels: Map<string, { name: string; color: string; description: string | null }>;
  comments: StoredComment[];
  requests: Recorded[];
  addPullRequest(title?: string): number;
  /** A comment by `author` (default: someone else than the token's identity, a reviewer). */
  addComment(issue: number, body: string, author?: string): StoredComment;
  commentsOn(issue: number): StoredComment[];
  close(): Promise<void>;
}

interface RepoParams {
  owner: string;
  repo: string;
}

const notFound = { message: "Not Found", documentation_url: "https://docs.github.com/rest" };

function tooLong(resource: string) {
  return {
    message: "Validation Failed",
    errors: [
      {
        resource,
        code: "custom",
        field: "body",
        message: `body is too long (maximum is ${BODY_LIMIT} characters)`,
      },
    ],
  };
}

export async function startGitHubStandIn(
  options: {
    owner?: string;
    repo?: string;
    token?: string;
    /**
     * GitHub creates an unknown label on a new issue only for a token with push access; for others
     * (a fork's token, a fine-grained token without it) the label is dropped without an error.
     */
    dropUnknownLabels?: boolean;
    /**
     * Whose token it is. An Actions run's GITHUB_TOKEN (the default) writes as
     * `github-actions[bot]` and is refused GET /user (403); a personal token's /user names its login.
     */
    login?: string;
  } = {},
): Promise<GitHubStandIn> {
  const owner = options.owner ?? "acme";
  const repoName = options.repo ?? "grc-config";
  const token = options.token ?? "ghs_standInToken0123456789";
  const issues: StoredIssue[] = [];
  const comments: StoredComment[] = [];
  const known: GitHubStandIn["labels"] = new Map();
  const requests: Recorded[] = [];
  let clock = 0;
  let nextComment = 1000;
  const BOT = "github-actions[bot]";
  const identity = options.login ?? BOT;
  const app = Fastify({ logger: false, bodyLimit: 8 * 1024 * 1024 });
  let base = "";

  function newIssue(fields: Partial<StoredIssue> & { title: string }): StoredIssue {
    const issue: StoredIssue = {
      number: issues.length + 1,
      body: null,
      state: "open",
      state_reason: null,
      labels: [],
      ...fields,
    };
    issues.push(issue);
    return issue;
  }

  function newComment(issue: number, body: string, author = "reviewer"): StoredComment {
    const comment = { id: nextComment++, issue, body, author, created: ++clock, updated: clock };
    comments.push(comment);
    return comment;
  }

  function commentJson(comment: StoredComment) {
    return {
      id: comment.id,
      body: comment.body,
      issue_url: `${base}/repos/${owner}/${repoName}/issues/${comment.issue}`,
      user: { login: comment.author, type: comment.author.endsWith("[bot]") ? "Bot" : "User" },
    };
  }

  function issueJson(issue: StoredIssue) {
    return { ...issue, labels: issue.labels.map((name) => ({ name })) };
  }

  /** Sends one page of `items` with a Link header, as GitHub pages lists. */
  function page<T>(request: FastifyRequest, reply: FastifyReply, items: T[]): T[] {
    const url = new URL(request.url, base);
    const perPage = Math.min(Math.max(Number(url.searchParams.get("per_page") ?? 30) || 30, 1), 100);
    const current = Math.max(Number(url.searchParams.get("page") ?? 1) || 1, 1);
    const last = Math.max(Math.ceil(items.length / perPage), 1);
    const link = (n: number, rel: string) => {
      const target = new URL(url);
      target.searchParams.set("page", String(n));
      return `<${target.href}>; rel="${rel}"`;
    };
    const links = [];
    if (current < last) links.push(link(current + 1, "next"), link(last, "last"));
    if (current > 1) links.push(link(1, "first"), link(current - 1, "prev"));
    if (links.length) reply.header("link", links.join(", "));
    return items.slice((current - 1) * perPage, current * perPage);
  }

  app.addHook("onRequest", async (request, reply) => {
    const authorization = request.headers.authorization;
    requests.push({ method: request.method, url: request.url, authorization });
    if (authorization !== `Bearer ${token}` && authorization !== `token ${token}`) {
      return reply.code(401).send({ message: "Bad credentials" });
    }
    if (request.url === "/user") return;
    const params = /^\/repos\/([^/]+)\/([^/?]+)/.exec(request.url);
    if (!params || params[1] !== owner || params[2] !== repoName) return reply.code(404).send(notFound);
  });

  app.get("/user", async (_request, reply) => {
    if (identity === BOT) return reply.code(403).send({ message: "Resource not accessible by integration" });
    return { login: identity, type: "User" };
  });

  app.get<{ Params: RepoParams & { number: string } }>(
    "/repos/:owner/:repo/issues/:number/comments",
    async (request, reply) => {
      const number = Number(request.params.number);
      if (!issues.some((i) => i.number === number)) return reply.code(404).send(notFound);
      return page(request, reply, comments.filter((c) => c.issue === number).map(commentJson));
    },
  );

  app.post<{ Params: RepoParams & { number: string }; Body: { body?: unknown } }>(
    "/repos/:owner/:repo/issues/:number/comments",
    async (request, reply) => {
      const number = Number(request.params.number);
      if (!issues.some((i) => i.number === number)) return reply.code(404).send(notFound);
      const body = request.body?.body;
      if (typeof body !== "string" || body === "") {
        return reply.code(422).send({ message: "Validation Failed", errors: [{ code: "missing_field" }] });
      }
      if (body.length > BODY_LIMIT) return reply.code(422).send(tooLong("IssueComment"));
      return reply.code(201).send(commentJson(newComment(number, body, identity)));
    },
  );

  app.patch<{ Params: RepoParams & { id: string }; Body: { body?: unknown } }>(
    "/repos/:owner/:repo/issues/comments/:id",
    async (request, reply) => {
      const comment = comments.find((c) => c.id === Number(request.params.id));
      if (!comment) return reply.code(404).send(notFound);
      const body = request.body?.body;
      if (typeof body !== "string") return reply.code(422).send({ message: "Validation Failed" });
      if (body.length > BODY_LIMIT) return reply.code(422).send(tooLong("IssueComment"));
      comment.body = body;
      comment.updated = ++clock;
      return commentJson(comment);
    },
  );

  app.get<{ Querystring: { state?: string; labels?: string } }>(
    "/repos/:owner/:repo/issues",
    async (request, reply) => {
      const state = request.query.state ?? "open";
      const wanted = (request.query.labels ?? "").split(",").filter(Boolean);
      const matching = issues
        .filter((i) => state === "all" || i.state === state)
        .filter((i) => wanted.every((label) => i.labels.includes(label)))
        // GitHub's default order: newest first.
        .sort((a, b) => b.number - a.number)
        .map(issueJson);
      return page(request, reply, matching);
    },
  );

  app.get<{ Params: RepoParams & { name: string } }>(
    "/repos/:owner/:repo/labels/:name",
    async (request, reply) => {
      const label = known.get(request.params.name);
      return label ?? reply.code(404).send(notFound);
    },
  );

  app.post<{ Body: { name?: unknown; color?: unknown; description?: unknown } }>(
    "/repos/:owner/:repo/labels",
    async (request, reply) => {
      const { name, color, description } = request.body ?? {};
      if (typeof name !== "string" || name === "")
        return reply
          .code(422)
          .send({ message: "Validation Failed", errors: [{ field: "name", code: "missing_field" }] });
      if (known.has(name))
        return reply.code(422).send({
          message: "Validation Failed",
          errors: [{ resource: "Label", code: "already_exists", field: "name" }],
        });
      const label = {
        name,
        color: typeof color === "string" ? color : "ededed",
        description: typeof description === "string" ? description : null,
      };
      known.set(name, label);
      return reply.code(201).send(label);
    },
  );

  app.post<{ Body: { title?: unknown; body?: unknown; labels?: unknown } }>(
    "/repos/:owner/:repo/issues",
    async (request, reply) => {
      const { title, body, labels } = request.body ?? {};
      if (typeof title !== "string" || title === "") {
        return reply
          .code(422)
          .send({ message: "Validation Failed", errors: [{ field: "title", code: "missing_field" }] });
      }
      if (typeof body === "string" && body.length > BODY_LIMIT) return reply.code(422).send(tooLong("Issue"));
      const named = Array.isArray(labels) ? labels.map(String) : [];
      for (const name of named) {
        if (!options.dropUnknownLabels && !known.has(name))
          known.set(name, { name, color: "ededed", description: null });
      }
      const issue = newIssue({
        title,
        body: typeof body === "string" ? body : null,
        labels: named.filter((name) => known.has(name)),
      });
      return reply.code(201).send(issueJson(issue));
    },
  );

  app.patch<{ Params: RepoParams & { number: string }; Body: Partial<StoredIssue> }>(
    "/repos/:owner/:repo/issues/:number",
    async (request, reply) => {
      const issue = issues.find((i) => i.number === Number(request.params.number));
      if (!issue) return reply.code(404).send(notFound);
      const { title, body, state, state_reason } = request.body ?? {};
      if (typeof body === "string" && body.length > BODY_LIMIT) return reply.code(422).send(tooLong("Issue"));
      if (state !== undefined && state !== "open" && state !== "closed") {
        return reply
          .code(422)
          .send({ message: "Validation Failed", errors: [{ field: "state", code: "invalid" }] });
      }
      if (typeof title === "string") issue.title = title;
      if (typeof body === "string") issue.body = body;
      if (state) issue.state = state;
      if (state_reason !== undefined) issue.state_reason = state_reason;
      return issueJson(issue);
    },
  );

  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (typeof address !== "object" || address === null) throw new Error("stand-in did not listen");
  base = `http://127.0.0.1:${address.port}`;

  return {
    url: base,
    token,
    repository: `${owner}/${repoName}`,
    issues,
    labels: known,
    comments,
    requests,
    addPullRequest(title = "Change the manifests") {
      const issue = newIssue({ title });
      issue.pull_request = { url: `${base}/repos/${owner}/${repoName}/pulls/${issue.number}` };
      return issue.number;
    },
    addComment: newComment,
    commentsOn: (issue) => comments.filter((c) => c.issue === issue),
    close: () => app.close(),
  };
}

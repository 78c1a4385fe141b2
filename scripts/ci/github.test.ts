import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GitHubStandIn, startGitHubStandIn } from "../../test/ci/github-stand-in.ts";
import { createGitHub, delayFor, GitHubError, nextLink, shouldRetry } from "./github.ts";

describe("retry decisions", () => {
  it("retry GET and PATCH on 5xx and anything on 429, never a POST on 5xx, at most three tries", () => {
    expect(shouldRetry("GET", 502, 1)).toBe(true);
    expect(shouldRetry("PATCH", 503, 2)).toBe(true);
    expect(shouldRetry("GET", 502, 3)).toBe(false);
    expect(shouldRetry("POST", 502, 1)).toBe(false);
    expect(shouldRetry("POST", 429, 1)).toBe(true);
    expect(shouldRetry("GET", 404, 1)).toBe(false);
    expect(shouldRetry("GET", 422, 1)).toBe(false);
  });

  it("wait what Retry-After says, capped, else back off exponentially", () => {
    expect(delayFor(1, "3")).toBe(3_000);
    expect(delayFor(1, "3600")).toBe(60_000);
    expect(delayFor(1, null)).toBe(1_000);
    expect(delayFor(2, "soon")).toBe(2_000);
  });
});

describe("nextLink", () => {
  it("finds rel=next among the links", () => {
    expect(
      nextLink(
        '<https://api.github.com/x?page=3>; rel="next", <https://api.github.com/x?page=5>; rel="last"',
      ),
    ).toBe("https://api.github.com/x?page=3");
    expect(nextLink('<https://api.github.com/x?page=1>; rel="first"')).toBeUndefined();
    expect(nextLink(null)).toBeUndefined();
  });
});

describe("createGitHub against the stand-in", () => {
  let github: GitHubStandIn;
  beforeAll(async () => {
    github = await startGitHubStandIn();
  });
  afterAll(async () => {
    await github.close();
  });

  it("pages through a list with the token on every page", async () => {
    const pr = github.addPullRequest();
    for (let i = 0; i < 250; i++) github.addComment(pr, `c${i}`);
    const before = github.requests.length;
    const client = createGitHub({ apiUrl: github.url, token: github.token });
    const comments = await client.paginate<{ body: string }>(
      `/repos/acme/grc-config/issues/${pr}/comments?per_page=100`,
    );
    expect(comments.map((c) => c.body)).toEqual(Array.from({ length: 250 }, (_, i) => `c${i}`));
    expect(github.requests.length - before).toBe(3);
  });

  it("throws a GitHubError naming the call and GitHub's reasons, never the token", async () => {
    const pr = github.addPullRequest();
    const client = createGitHub({ apiUrl: `${github.url}/`, token: github.token });
    const call = client.request("POST", `/repos/acme/grc-config/issues/${pr}/comments`, {
      body: "x".repeat(70_000),
    });
    await expect(call).rejects.toThrow(GitHubError);
    await expect(call).rejects.toThrow(
      `GitHub API: POST /repos/acme/grc-config/issues/${pr}/comments answered 422: Validation Failed; body is too long (maximum is 65536 characters)`,
    );
    const wrong = createGitHub({ apiUrl: github.url, token: "ghs_wrong" });
    const refused = wrong.request("GET", "/repos/acme/grc-config/issues");
    await expect(refused).rejects.toThrow("answered 401: Bad credentials");
    await expect(refused).rejects.not.toThrow(/ghs_/);
  });
});

describe("createGitHub with a scripted fetch", () => {
  function scripted(responses: (() => Response)[]) {
    const calls: string[] = [];
    const fetchStub = (async (input: string | URL | Request, init?: RequestInit) => {
      calls.push(`${init?.method} ${String(input)}`);
      const next = responses.shift();
      if (!next) throw new Error("no more responses");
      return next();
    }) as typeof fetch;
    return { calls, fetchStub };
  }

  it("retries a GET after 502 and honours Retry-After on 429, recording the waits", async () => {
    const waits: number[] = [];
    const { calls, fetchStub } = scripted([
      () => new Response("bad gateway", { status: 502 }),
      () => new Response("{}", { status: 429, headers: { "retry-after": "2" } }),
      () => Response.json([{ id: 1 }]),
    ]);
    const client = createGitHub({
      apiUrl: "https://ghe.example/api/v3",
      token: "t",
      fetch: fetchStub,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    await expect(client.paginate("/repos/o/r/issues")).resolves.toEqual([{ id: 1 }]);
    expect(calls).toEqual(Array(3).fill("GET https://ghe.example/api/v3/repos/o/r/issues"));
    expect(waits).toEqual([1_000, 2_000]);
  });

  it("does not retry a POST that failed with 502, which may have created the comment", async () => {
    const { calls, fetchStub } = scripted([() => new Response("", { status: 502 })]);
    const client = createGitHub({
      apiUrl: "https://api.github.com",
      token: "t",
      fetch: fetchStub,
      sleep: async () => {},
    });
    await expect(client.request("POST", "/repos/o/r/issues", { title: "x" })).rejects.toThrow("answered 502");
    expect(calls).toHaveLength(1);
  });

  it("refuses to follow a next link to another origin, where the token would go", async () => {
    const { fetchStub } = scripted([
      () =>
        Response.json([{ id: 1 }], { headers: { link: '<https://evil.example/steal?page=2>; rel="next"' } }),
    ]);
    const client = createGitHub({ apiUrl: "https://api.github.com", token: "t", fetch: fetchStub });
    await expect(client.paginate("/repos/o/r/issues")).rejects.toThrow(
      "GitHub API: refusing to follow a link to https://evil.example",
    );
  });
});

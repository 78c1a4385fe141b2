import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGitHub } from "./github.ts";
import { releaseArgs } from "./release-args.ts";
import { openReleasePullRequest } from "./release-pr.ts";
import { parseRepo } from "./repo.ts";

describe("releaseArgs", () => {
  it("builds `egp release create` from the inputs, a --target per target", () => {
    expect(releaseArgs("dev", "2026.11.1")).toBe("release create --from dev --name 2026.11.1");
    expect(releaseArgs("dev", "r1", "Package/risk-app, Package/policy*")).toBe(
      'release create --from dev --name r1 --target "Package/risk-app" --target "Package/policy*"',
    );
  });

  it("refuses a name that is no release name, and targets or environments that could add words", () => {
    expect(() => releaseArgs("dev", "2026 --yes")).toThrow(/is not a release name/);
    expect(() => releaseArgs("dev", "../main")).toThrow(/is not a release name/);
    expect(() => releaseArgs("dev --yes", "r1")).toThrow(/is not an environment name/);
    expect(() => releaseArgs("dev", "r1", 'Package/"x')).toThrow(/is not KIND\/KEY/);
  });
});

/** GitHub's git data and pulls endpoints, as far as the release's pull request uses them. */
interface Call {
  method: string;
  path: string;
  body: Record<string, unknown> | undefined;
}

describe("openReleasePullRequest", () => {
  const calls: Call[] = [];
  let url = "";
  const server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk) => {
      text += String(chunk);
    });
    request.on("end", () => {
      const path = request.url ?? "";
      calls.push({ method: request.method ?? "", path, body: text ? JSON.parse(text) : undefined });
      const answers: Record<string, [number, unknown]> = {
        "GET /repos/acme/grc/git/ref/heads/main": [200, { object: { sha: "base-sha" } }],
        "GET /repos/acme/grc/git/commits/base-sha": [200, { tree: { sha: "base-tree" } }],
        "POST /repos/acme/grc/git/trees": [201, { sha: "new-tree" }],
        "POST /repos/acme/grc/git/commits": [201, { sha: "new-commit" }],
        "POST /repos/acme/grc/git/refs": [201, { ref: "refs/heads/egp/release/2026.11.1" }],
        "POST /repos/acme/grc/pulls": [
          201,
          { number: 7, html_url: "https://github.example/acme/grc/pull/7" },
        ],
      };
      const [status, body] = answers[`${request.method} ${path}`] ?? [404, { message: "Not Found" }];
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    });
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("commits releases/NAME.yaml on egp/release/NAME, from the base branch's head, and opens the pull request", async () => {
    const github = createGitHub({ apiUrl: url, token: "t0ken" });
    const opened = await openReleasePullRequest(github, parseRepo("acme/grc"), {
      name: "2026.11.1",
      path: "releases/2026.11.1.yaml",
      content: "name: 2026.11.1\n",
      base: "main",
      body: "the record",
    });
    expect(opened).toEqual({ number: 7, url: "https://github.example/acme/grc/pull/7" });
    expect(calls.map((call) => `${call.method} ${call.path}`)).toEqual([
      "GET /repos/acme/grc/git/ref/heads/main",
      "GET /repos/acme/grc/git/commits/base-sha",
      "POST /repos/acme/grc/git/trees",
      "POST /repos/acme/grc/git/commits",
      "POST /repos/acme/grc/git/refs",
      "POST /repos/acme/grc/pulls",
    ]);
    expect(calls[2]?.body).toEqual({
      base_tree: "base-tree",
      tree: [{ path: "releases/2026.11.1.yaml", mode: "100644", type: "blob", content: "name: 2026.11.1\n" }],
    });
    expect(calls[3]?.body).toEqual({ message: "Release 2026.11.1", tree: "new-tree", parents: ["base-sha"] });
    expect(calls[4]?.body).toEqual({ ref: "refs/heads/egp/release/2026.11.1", sha: "new-commit" });
    expect(calls[5]?.body).toEqual({
      title: "Release 2026.11.1",
      head: "egp/release/2026.11.1",
      base: "main",
      body: "the record",
    });
  });
});

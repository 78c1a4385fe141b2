import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readPlanFile } from "../../src/plan/index.ts";
import { exampleTree } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";
import { type GitHubStandIn, startGitHubStandIn } from "./github-stand-in.ts";
import { githubEnv, resultFlags, runEgpStep, runStep, type StepRun } from "./scripts.ts";

/*
 * The pull-request plan preview, end to end: the real `egp plan` on the project's example (embedded
 * demo-dev and demo-prod emulators) through the composite action's script, then the comment script
 * against a local stand-in for GitHub's REST API.
 */

const PLAN_ARGS = (env: string) =>
  `plan --env ${env} --format markdown --out plan-${env}.json --detailed-exitcode`;
const MARKER = "<!-- egp-plan:local-prod -->";

let github: GitHubStandIn;
let repo: string;
/** One plan of each example environment, made before any manifest changes, for the tests that only post. */
const plans: Record<string, StepRun> = {};

beforeAll(async () => {
  github = await startGitHubStandIn();
  repo = await testdir(exampleTree({ persist: false }));
  [plans["local-dev"], plans["local-prod"]] = await Promise.all([
    runEgpStep(repo, PLAN_ARGS("local-dev")),
    runEgpStep(repo, PLAN_ARGS("local-prod")),
  ]);
}, 120_000);

afterAll(async () => {
  await github.close();
});

async function comment(env: string, step: StepRun, pr: number) {
  return runStep("post-plan-comment", {
    args: [...resultFlags(env, step), "--artifact", `egp-plan-${env}`],
    env: await githubEnv(github, pr),
  });
}

describe("plan preview on a pull request", () => {
  it("exposes exit code 2, saves the plan file, and posts one comment that later runs edit in place", async () => {
    const pr = github.addPullRequest();
    // Enough comments before ours that it lands on the second page of the list.
    for (let i = 0; i < 130; i++) github.addComment(pr, `review remark ${i}`);

    const plan = plans["local-prod"]!;
    expect(plan.code).toBe(0);
    expect(plan.outputs["exit-code"]).toBe("2");
    expect(plan.stdout).toContain("### egp plan for `local-prod`");
    expect(plan.stdout).toContain("egp plan exited with code 2");
    expect(readPlanFile(await readFile(join(repo, "plan-local-prod.json"), "utf8")).environment).toBe(
      "local-prod",
    );

    const first = await comment("local-prod", plan, pr);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/plan comment for local-prod on #\d+: created/);
    const ours = () => github.commentsOn(pr).filter((c) => c.body.startsWith(MARKER));
    expect(ours()).toHaveLength(1);
    const created = ours()[0]!;
    expect(created.body).toContain("| 2 | 3 | 0 | 1 |");
    expect(created.body).toContain("plan file: artifact `egp-plan-local-prod`");
    expect(created.body).toContain(
      "[workflow run](https://github.example/acme/grc-config/actions/runs/4242)",
    );

    // A new push changes a manifest: the same comment now shows the new plan.
    const users = join(repo, "manifests", "users.yaml");
    await writeFile(
      users,
      (await readFile(users, "utf8")).replace("title: Risk Manager", "title: Head of Risk"),
    );
    const again = await runEgpStep(repo, PLAN_ARGS("local-prod"));
    expect(again.outputs["exit-code"]).toBe("2");
    const second = await comment("local-prod", again, pr);
    expect(second.stdout).toContain(`: updated (${created.id})`);
    expect(ours()).toHaveLength(1);
    expect(ours()[0]).toMatchObject({ id: created.id });
    expect(ours()[0]!.body).toContain('"Senior Risk Manager" -> "Head of Risk"');
    expect(ours()[0]!.updated).toBeGreaterThan(ours()[0]!.created);
    expect(github.commentsOn(pr)).toHaveLength(131);

    // The list was read page by page, with the token on every request.
    const lists = github.requests.filter(
      (r) => r.method === "GET" && r.url.includes(`/issues/${pr}/comments`),
    );
    expect(lists.some((r) => r.url.includes("page=2"))).toBe(true);
    expect(github.requests.every((r) => r.authorization === `Bearer ${github.token}`)).toBe(true);
  });

  it("never edits a comment someone else wrote, even one that starts with the marker", async () => {
    const pr = github.addPullRequest();
    const forged = github.addComment(pr, `${MARKER}\nLooks good to me, merge it`, "mallory");
    const posted = await comment("local-prod", plans["local-prod"]!, pr);
    expect(posted.code).toBe(0);
    expect(posted.stdout).toMatch(/: created \(\d+\)/);
    expect(github.commentsOn(pr).find((c) => c.id === forged.id)).toMatchObject({
      body: `${MARKER}\nLooks good to me, merge it`,
      updated: forged.created,
    });
    const ours = github.commentsOn(pr).filter((c) => c.author === "github-actions[bot]");
    expect(ours.map((c) => c.body.split("\n")[0])).toEqual([MARKER]);
    expect(
      github.requests.some((r) => r.method === "PATCH" && r.url.endsWith(`/comments/${forged.id}`)),
    ).toBe(false);
  });

  it("with a personal token, edits the comment of the token's own login (GET /user), not the Actions bot's", async () => {
    const personal = await startGitHubStandIn({ login: "egp-bot" });
    try {
      const pr = personal.addPullRequest();
      const bot = personal.addComment(pr, `${MARKER}\nold`, "github-actions[bot]");
      const own = personal.addComment(pr, `${MARKER}\nold`, "egp-bot");
      const posted = await runStep("post-plan-comment", {
        args: [...resultFlags("local-prod", plans["local-prod"]!)],
        env: await githubEnv(personal, pr),
      });
      expect(posted.stdout).toContain(`: updated (${own.id})`);
      expect(personal.commentsOn(pr).find((c) => c.id === bot.id)?.body).toBe(`${MARKER}\nold`);
    } finally {
      await personal.close();
    }
  });

  it("keeps one comment per environment on the same pull request", async () => {
    const pr = github.addPullRequest();
    for (const env of ["local-dev", "local-prod"]) {
      const plan = plans[env]!;
      expect(["0", "2"]).toContain(plan.outputs["exit-code"]);
      expect((await comment(env, plan, pr)).code).toBe(0);
    }
    const bodies = github.commentsOn(pr).map((c) => c.body.split("\n")[0]);
    expect(bodies).toEqual(["<!-- egp-plan:local-dev -->", MARKER]);
  });

  it("exits 0 with exit-code 0 when nothing changes", async () => {
    const clean = await testdir({ "environments/prod.yaml": "url: embedded:demo-prod\ninstance: Default\n" });
    const plan = await runEgpStep(clean, PLAN_ARGS("prod"));
    expect(plan.code).toBe(0);
    expect(plan.outputs["exit-code"]).toBe("0");
    const pr = github.addPullRequest();
    const posted = await comment("prod", plan, pr);
    expect(posted.code).toBe(0);
    expect(github.commentsOn(pr)[0]?.body).toContain("No changes. `prod` matches the manifests.");
  });

  it("on exit 1, posts why on the pull request and fails the job", async () => {
    const plan = await runEgpStep(repo, PLAN_ARGS("staging"));
    expect(plan.code).toBe(1);
    expect(plan.outputs["exit-code"]).toBe("1");
    expect(plan.stdout).toContain("::error::egp plan exited with code 1 (allowed: 0, 2)");
    expect(existsSync(join(repo, "plan-staging.json"))).toBe(false);

    const pr = github.addPullRequest();
    const posted = await comment("staging", plan, pr);
    expect(posted.code).toBe(1);
    expect(posted.stdout).toContain("::error::egp plan for staging failed with exit code 1");
    const body = github.commentsOn(pr)[0]?.body ?? "";
    expect(body.startsWith("<!-- egp-plan:staging -->\n### egp plan for `staging` failed")).toBe(true);
    expect(body).toContain("egp: EGP_MANIFEST_INVALID environments/staging.yaml: no such environment");
    expect(body).not.toContain("plan file: artifact");
  });

  it("puts the plan in the job summary when the run has no pull request", async () => {
    const plan = plans["local-prod"]!;
    const before = github.requests.length;
    const posted = await runStep("post-plan-comment", {
      args: resultFlags("local-prod", plan),
      env: await githubEnv(github),
    });
    expect(posted.code).toBe(0);
    expect(posted.stdout).toContain(
      "no pull request in this event: the plan of local-prod went to the job summary",
    );
    expect(posted.summary.startsWith(`${MARKER}\n### egp plan for \`local-prod\``)).toBe(true);
    expect(github.requests.length).toBe(before);
  });

  it("fails loudly, naming the call but not the token, when GitHub refuses the token", async () => {
    const plan = plans["local-dev"]!;
    const pr = github.addPullRequest();
    const posted = await runStep("post-plan-comment", {
      args: resultFlags("local-dev", plan),
      env: { ...(await githubEnv(github, pr)), GITHUB_TOKEN: "ghs_wrongTokenForTheStandIn" },
    });
    expect(posted.code).toBe(1);
    expect(posted.stdout).toMatch(
      /::error::GitHub API: GET \/repos\/acme\/grc-config\/issues\/\d+\/comments answered 401: Bad credentials/,
    );
    expect(posted.all).not.toContain("ghs_wrongTokenForTheStandIn");
    expect(github.commentsOn(pr)).toHaveLength(0);
  });
});

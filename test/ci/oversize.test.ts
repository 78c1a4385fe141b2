import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testdir } from "../helpers/testdir.ts";
import { BODY_LIMIT, type GitHubStandIn, startGitHubStandIn } from "./github-stand-in.ts";
import { githubEnv, resultFlags, runEgpStep, runStep, type StepRun } from "./scripts.ts";

/*
 * A plan far bigger than GitHub's 65,536-character comment limit (400 users to create, about
 * 225,000 characters of markdown uncut) must still be posted, within the limit, saying what was cut.
 * The stand-in refuses a longer body with 422, as GitHub does.
 */

const USERS = 400;

function users(): string {
  return Array.from({ length: USERS }, (_, i) => {
    const n = String(i).padStart(4, "0");
    return [
      "kind: User",
      `userName: user${n}`,
      `firstName: First${i}`,
      `lastName: Last${i}`,
      `title: Senior Analyst of Governance Number ${i}`,
      `department: Department of Enterprise Risk ${i}`,
      `company: Example Corporation ${i}`,
      "contacts:",
      `  - { type: email, subType: business, value: user${n}@example.com, default: true }`,
      "",
    ].join("\n");
  }).join("---\n");
}

let github: GitHubStandIn;
let repo: string;

beforeAll(async () => {
  github = await startGitHubStandIn();
  repo = await testdir({
    "environments/prod.yaml": "url: embedded:empty\ninstance: Default\n",
    "manifests/users.yaml": users(),
  });
});

afterAll(async () => {
  await github.close();
});

async function post(plan: StepRun): Promise<{ code: number; body: string }> {
  const pr = github.addPullRequest();
  const posted = await runStep("post-plan-comment", {
    args: [...resultFlags("prod", plan), "--artifact", "egp-plan-prod"],
    env: await githubEnv(github, pr),
  });
  return { code: posted.code, body: github.commentsOn(pr)[0]?.body ?? "" };
}

function fencesBalanced(body: string): boolean {
  return body.split("\n").filter((line) => /^\s*```/.test(line)).length % 2 === 0;
}

describe("a plan bigger than the comment limit", () => {
  it("is posted from egp's markdown, which egp cut itself and says so", async () => {
    const plan = await runEgpStep(repo, "plan --env prod --format markdown --detailed-exitcode");
    expect(plan.outputs["exit-code"]).toBe("2");
    const { code, body } = await post(plan);
    expect(code).toBe(0);
    expect(body.length).toBeGreaterThan(50_000);
    expect(body.length).toBeLessThanOrEqual(BODY_LIMIT);
    expect(body.startsWith("<!-- egp-plan:prod -->\n### egp plan for `prod`")).toBe(true);
    expect(body).toMatch(/> \*\*Cut:\*\* \d+ change\(s\) \(\d+ characters\) are not shown/);
    expect(body).toContain(`Plan: ${USERS} to add, 0 to change, 0 to destroy, 0 to promote.`);
    expect(body.trimEnd().endsWith("plan file: artifact `egp-plan-prod`</sub>")).toBe(true);
    expect(fencesBalanced(body)).toBe(true);
  });

  it("is cut by the comment builder when egp's output is not capped (text), which says what it cut", async () => {
    const plan = await runEgpStep(repo, "plan --env prod --format text --detailed-exitcode");
    const stdout = await readFile(plan.outputs["stdout-file"]!, "utf8");
    expect(stdout.length).toBeGreaterThan(3 * BODY_LIMIT);
    const { code, body } = await post(plan);
    expect(code).toBe(0);
    expect(body.length).toBeLessThanOrEqual(BODY_LIMIT);
    expect(body.length).toBeGreaterThan(BODY_LIMIT - 2_000);
    const notice =
      /> \*\*Cut:\*\* (\d+) line\(s\) \((\d+) characters\) are not shown, to stay within GitHub's 65536-character limit\. The whole plan is in the `egp-plan-prod` artifact of \[the workflow run\]\(https:\/\/github\.example\/acme\/grc-config\/actions\/runs\/4242\)\./;
    const match = notice.exec(body);
    expect(match).not.toBeNull();
    const lines = stdout.replace(/\n+$/, "").split("\n");
    expect(body).toContain(lines.slice(0, lines.length - Number(match![1])).join("\n"));
    expect(stdout).toContain(`+ User "user${String(USERS - 1).padStart(4, "0")}"`);
    expect(body).not.toContain(`+ User "user${String(USERS - 1).padStart(4, "0")}"`);
    expect(body.trimEnd().endsWith("plan file: artifact `egp-plan-prod`</sub>")).toBe(true);
  });
});

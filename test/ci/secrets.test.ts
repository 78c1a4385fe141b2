import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useEmulator } from "../helpers/raw.ts";
import { testdir } from "../helpers/testdir.ts";
import { type GitHubStandIn, startGitHubStandIn } from "./github-stand-in.ts";
import { githubEnv, resultFlags, runEgpStep, runStep, type StepRun } from "./scripts.ts";

/*
 * Credentials come in as the job's secrets (EGP_CI_SECRETS, the JSON of the `secrets` context) and
 * must never come out: not in the pull-request comment, the step's log, its outputs, the job summary
 * or the plan file.
 */

const ADMIN_PASSWORD = "Adm1n#Secret-7f3a";
const NEW_USER_PASSWORD = "N3wUser#Secret-91bc";
const GITHUB_TOKEN_SECRET = "ghs_notForEgp0123456789";
const { emulator } = useEmulator({ seed: "demo-prod", adminPassword: ADMIN_PASSWORD });

let github: GitHubStandIn;
let repo: string;

beforeAll(async () => {
  github = await startGitHubStandIn();
  repo = await testdir({
    "environments/prod.yaml": [
      `url: ${emulator().url}`,
      "instance: Default",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: environment file text, not a template.
      "auth: { username: sysadmin, password: '${EGP_PROD_PASSWORD}' }",
      "roles: { General User: 2 }",
      "groups: { Everyone: 1 }",
      "",
    ].join("\n"),
    "manifests/users.yaml": [
      "kind: User",
      "userName: snew",
      "firstName: Sam",
      "lastName: New",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: manifest text, not a template.
      "initialPassword: ${EGP_NEW_USER_PASSWORD}",
      "roles: [General User]",
      "",
    ].join("\n"),
  });
});

afterAll(async () => {
  await github.close();
});

function expectNoSecret(...texts: string[]): void {
  for (const text of texts) {
    expect(text).not.toContain(ADMIN_PASSWORD);
    expect(text).not.toContain(NEW_USER_PASSWORD);
    expect(text).not.toContain(GITHUB_TOKEN_SECRET);
  }
}

async function planAndComment(
  adminPassword: string,
): Promise<{ plan: StepRun; posted: StepRun; body: string }> {
  const plan = await runEgpStep(
    repo,
    "plan --env prod --format markdown --out plan-prod.json --detailed-exitcode",
    {
      secrets: {
        EGP_PROD_PASSWORD: adminPassword,
        EGP_NEW_USER_PASSWORD: NEW_USER_PASSWORD,
        github_token: GITHUB_TOKEN_SECRET,
      },
      env: { EGP_CI_SUMMARY: "markdown" },
    },
  );
  const pr = github.addPullRequest();
  const posted = await runStep("post-plan-comment", {
    args: resultFlags("prod", plan),
    env: await githubEnv(github, pr),
  });
  return { plan, posted, body: github.commentsOn(pr)[0]?.body ?? "" };
}

describe("secrets in the plan preview", () => {
  it("reach egp from the secrets JSON and appear nowhere in the comment, log, outputs, summary or plan file", async () => {
    const { plan, posted, body } = await planAndComment(ADMIN_PASSWORD);
    expect(plan.outputs["exit-code"]).toBe("2");
    expect(posted.code).toBe(0);
    expect(body).toContain('+ User "snew"');
    expect(body).toContain('+ password: "(sensitive)"');
    expect(plan.summary).toContain('+ User "snew"');
    const planFile = await readFile(join(repo, "plan-prod.json"), "utf8");
    expectNoSecret(body, plan.all, posted.all, planFile);
  });

  it("stay out of the comment and the log when the login fails", async () => {
    const wrong = `${ADMIN_PASSWORD}-wrong`;
    const { plan, posted, body } = await planAndComment(wrong);
    expect(plan.outputs["exit-code"]).toBe("1");
    expect(posted.code).toBe(1);
    expect(body).toContain("### egp plan for `prod` failed");
    expectNoSecret(body, plan.all, posted.all);
    expect(body).not.toContain(wrong);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { egp, environmentFile } from "../helpers/cli.ts";
import { type Json, useEmulator } from "../helpers/raw.ts";
import { testdir } from "../helpers/testdir.ts";
import { type GitHubStandIn, startGitHubStandIn } from "./github-stand-in.ts";
import { githubEnv, resultFlags, runEgpStep, runStep } from "./scripts.ts";

/*
 * The scheduled drift check, end to end: the real `egp drift` against an emulator this test runs
 * (changed behind egp's back over raw HTTP, as someone in the platform's UI would), then the issue
 * script against a local stand-in for GitHub's REST API.
 */

const PASSWORD = "Drift#Issue2026";
const secrets = { EGP_TEST_PASSWORD: PASSWORD };
const { emulator, raw } = useEmulator({ seed: "demo-prod", adminPassword: PASSWORD });
const MAPS = [
  "roles: { System Administrator: 1, General User: 2, Auditor: 3, Risk Manager: 4 }",
  "groups: { Everyone: 1, Administrators: 2, Auditors: 3, Risk Owners: 4 }",
];
const MARKER = "<!-- egp-drift:prod -->";

let github: GitHubStandIn;
let repo: string;

beforeAll(async () => {
  github = await startGitHubStandIn();
  repo = await testdir({ "environments/prod.yaml": environmentFile(emulator().url, MAPS) });
  const exported = await egp(["export", "--env", "prod", "--out", "manifests/exported"], {
    cwd: repo,
    env: secrets,
  });
  expect(exported.code).toBe(0);
});

afterAll(async () => {
  await github.close();
});

async function setTitle(userName: string, title: string): Promise<void> {
  const token = await raw().token("sysadmin", PASSWORD);
  const users = await raw().read("/core/system/user", token);
  const user = (users.body as Json[]).map((e) => e.RequestedObject).find((u) => u.UserName === userName);
  // An update resets what it omits, so the whole user goes back with the one field changed.
  const put = await raw().call("/core/system/user", {
    method: "PUT",
    token,
    body: { User: { ...user, Title: title } },
  });
  expect(put.body).toMatchObject({ IsSuccessful: true });
}

/** One scheduled check: `egp drift` through the action's script, then the issue script. */
async function check(env = "prod") {
  const drift = await runEgpStep(repo, `drift --env ${env} --format markdown`, { secrets });
  const sync = await runStep("sync-drift-issue", {
    args: resultFlags(env, drift),
    env: await githubEnv(github),
  });
  return { drift, sync };
}

const driftIssues = () => github.issues.filter((i) => i.body?.startsWith(MARKER));

describe("drift issue", () => {
  it("does nothing on a clean instance with no open issue", async () => {
    const { drift, sync } = await check();
    expect(drift.outputs["exit-code"]).toBe("0");
    expect(sync.code).toBe(0);
    expect(sync.stdout).toContain("prod has no drift, and no drift issue is open");
    expect(github.issues).toHaveLength(0);
  });

  it("opens an issue with the report when the instance drifts, updates it on the next run, closes it when clean", async () => {
    // Someone else's issue with the label, and a pull request, are never taken for ours.
    github.issues.push({
      number: 1,
      title: "Unrelated",
      body: "<!-- egp-drift:dev -->",
      state: "open",
      state_reason: null,
      labels: ["egp-drift"],
    });
    github.addPullRequest(MARKER);

    await setTitle("anguyen", "Head of Everything");
    const first = await check();
    expect(first.drift.code).toBe(0);
    expect(first.drift.outputs["exit-code"]).toBe("2");
    expect(first.sync.code).toBe(0);
    expect(first.sync.stdout).toMatch(/prod has drifted: issue #(\d+) opened/);
    expect(driftIssues()).toHaveLength(1);
    const issue = driftIssues()[0]!;
    expect(issue).toMatchObject({
      state: "open",
      labels: ["egp-drift"],
      title: "egp drift: prod differs from the manifests",
    });
    expect(issue.body).toContain("`prod` has drifted");
    expect(issue.body).toContain('~ User "anguyen"');
    expect(issue.body).toContain('~ title: "Head of Everything" -> "Senior Risk Manager"');
    expect(first.sync.summary).toContain('~ User "anguyen"');
    // The open findings, each with its fingerprint and the command that acknowledges it.
    expect(issue.body).toContain("Findings on prod: 1 open.");
    expect(issue.body).toMatch(
      /^egp drift ack [0-9a-f]{16} --env prod --reason "<why it is left>" --until <YYYY-MM-DD>$/m,
    );
    expect(issue.body).toContain("(https://github.example/acme/grc-config/actions/runs/4242#artifacts)");

    // Still drifted, differently: the same issue now shows the new report.
    await setTitle("anguyen", "Chief Everything Officer");
    const second = await check();
    expect(second.drift.outputs["exit-code"]).toBe("2");
    expect(second.sync.stdout).toContain(`prod has drifted: issue #${issue.number} updated`);
    expect(driftIssues()).toHaveLength(1);
    expect(driftIssues()[0]!.body).toContain('~ title: "Chief Everything Officer" -> "Senior Risk Manager"');
    expect(driftIssues()[0]!.body).not.toContain("Head of Everything");

    // Put back: the next check closes the issue, with a comment saying why.
    await setTitle("anguyen", "Senior Risk Manager");
    const third = await check();
    expect(third.drift.outputs["exit-code"]).toBe("0");
    expect(third.sync.code).toBe(0);
    expect(third.sync.stdout).toContain(`prod has no drift: closed issue(s) #${issue.number}`);
    expect(driftIssues()[0]).toMatchObject({ state: "closed", state_reason: "completed" });
    expect(github.commentsOn(issue.number).map((c) => c.body)).toEqual([
      "`prod` matches the manifests again ([workflow run](https://github.example/acme/grc-config/actions/runs/4242)). Closing.",
    ]);
    expect(github.issues.find((i) => i.number === 1)).toMatchObject({ state: "open" });

    // Drift again later: a closed issue stays closed and a new one is opened.
    await setTitle("anguyen", "Head of Everything");
    const fourth = await check();
    expect(fourth.sync.stdout).toMatch(/issue #\d+ opened/);
    expect(driftIssues().map((i) => i.state)).toEqual(["closed", "open"]);
    await setTitle("anguyen", "Senior Risk Manager");
  }, 120_000);

  it("fails loudly on exit 1 and leaves the issue alone", async () => {
    const before = github.requests.length;
    const { drift, sync } = await check("staging");
    expect(drift.code).toBe(1);
    expect(drift.outputs["exit-code"]).toBe("1");
    expect(drift.stdout).toContain("::error::egp drift exited with code 1 (allowed: 0, 2)");
    expect(sync.code).toBe(1);
    expect(sync.stdout).toContain(
      "::error::staging: egp drift exited with code 1; the drift issue is left as it is",
    );
    expect(github.requests.length).toBe(before);
  });

  it("fails when the egp step left no exit code, rather than deciding anything", async () => {
    const sync = await runStep("sync-drift-issue", {
      args: ["--env", "prod", "--exit-code", ""],
      env: await githubEnv(github),
    });
    expect(sync.code).toBe(1);
    expect(sync.stdout).toContain('::error::--exit-code "" is not an exit code (did the egp step run?)');
  });
});

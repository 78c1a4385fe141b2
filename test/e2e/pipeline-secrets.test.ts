// biome-ignore-all lint/suspicious/noTemplateCurlyInString: environment files and GitHub expressions, as text.
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useEmulator } from "../helpers/raw.ts";
import { testdir } from "../helpers/testdir.ts";
import { runWorkflow } from "../helpers/workflow-runner.ts";

/*
 * A pipeline whose stages are dev, test and prod, each logged into with its own password, calls a
 * reusable workflow: its secrets reach egp for every stage, whether the caller inherits them or
 * passes them as the one mapping secret (GitHub refuses a secret the called workflow does not
 * declare, so a stage name the workflow never heard of can't be passed by its own name).
 */

const PASSWORD = "Adm1n#Stage-5e2c";
const STAGES = ["dev", "test", "prod"] as const;
const { emulator } = useEmulator({ seed: "demo-prod", adminPassword: PASSWORD });
const GIT_ENV = { PATH: process.env.PATH ?? "", GIT_CONFIG_NOSYSTEM: "1", HOME: "/nonexistent" };

function git(dir: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      "git",
      ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args],
      { cwd: dir, env: GIT_ENV },
      (error, stdout, stderr) =>
        error ? reject(new Error(`git ${args.join(" ")}: ${stderr}`)) : resolve(stdout.trim()),
    ),
  );
}

const variable = (stage: string) => `EGP_${stage.toUpperCase()}_PASSWORD`;

async function repository(): Promise<{ origin: string; sha: string }> {
  const files: Record<string, string> = {};
  for (const stage of STAGES)
    files[`environments/${stage}.yaml`] =
      `url: ${emulator().url}\ninstance: Default\nauth: { username: sysadmin, password: '\${${variable(stage)}}' }\n`;
  const origin = await testdir(files);
  await git(origin, ["init", "--quiet", "--initial-branch=main"]);
  await git(origin, ["add", "--all"]);
  await git(origin, ["commit", "--quiet", "-m", "three stages"]);
  return { origin, sha: await git(origin, ["rev-parse", "HEAD"]) };
}

async function caller(secrets: string): Promise<string> {
  const path = join(await testdir({}), "pipeline.yml");
  await writeFile(
    path,
    `name: pipeline\non: workflow_dispatch\njobs:\n  status:\n    uses: ./.github/workflows/egp-status.yml\n    secrets:${secrets}\n`,
  );
  return path;
}

const eachPassword = Object.fromEntries(STAGES.map((stage) => [variable(stage), PASSWORD]));

describe("a three-stage pipeline's secrets", () => {
  it.each([
    ["inherited", " inherit", eachPassword],
    [
      "passed as EGP_SECRETS",
      "\n      EGP_SECRETS: ${{ secrets.EGP_SECRETS }}",
      { EGP_SECRETS: JSON.stringify(eachPassword) },
    ],
  ])(
    "reach egp for every stage when %s",
    async (_how, secrets, given) => {
      const { origin, sha } = await repository();
      const run = await runWorkflow(await caller(secrets), {
        origin,
        sha,
        secrets: given,
        approve: () => true,
      });
      const [status] = run.egp;
      expect(status?.stderr).not.toContain("EGP_");
      expect(status?.code, status?.stderr).toBe(0);
      for (const stage of STAGES) expect(status?.stdout).toMatch(new RegExp(`\\b${stage}\\b`));
      expect(status?.stdout + (status?.stderr ?? "")).not.toContain(PASSWORD);
    },
    120_000,
  );

  it("can't be passed by a stage name the workflow does not declare", async () => {
    const { origin, sha } = await repository();
    const pipeline = await caller("\n      EGP_TEST_PASSWORD: ${{ secrets.EGP_TEST_PASSWORD }}");
    await expect(
      runWorkflow(pipeline, { origin, sha, secrets: eachPassword, approve: () => true }),
    ).rejects.toThrow(/declares no secret EGP_TEST_PASSWORD/);
  });
});

import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.ts";
import { packagesOf } from "../../src/emulator/packages/model.ts";
import { generateSigningKey } from "../../src/store/signing.ts";
import { environmentFile, QUICK, ROOT } from "../helpers/cli.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";
import { type Registry, startRegistry } from "../helpers/registry.ts";
import { testdir } from "../helpers/testdir.ts";
import { type Approval, type RunResult, runWorkflow } from "../helpers/workflow-runner.ts";

/*
 * The release pipeline as CI runs it: example-release-create.yml (egp-release-create.yml) builds
 * the release on dev and its record is merged; then merges that name it in test's and prod's files
 * run example-release-pipeline.yml, whose stages (egp-release-apply.yml) each plan into a saved
 * file, wait for the environment's reviewer, and apply that file on another fresh runner. Every job
 * is a fresh clone with an empty `.egp/`; the instances are emulators over HTTP; the release store
 * is shared: a folder, then an OCI registry.
 */

const NAME = "2026-11-r1";
// Runners share no key of their own: the store's records are signed with the repository's key
// (`egp keys`), whose public half egp.yaml trusts, as docs/ci.md sets a pipeline up.
const KEYS = generateSigningKey();
const SECRETS = { EGP_TEST_PASSWORD: "Password1!", EGP_SIGNING_KEY: KEYS.privateKey };
const GATE = `egp: EGP_RELEASE_NOT_VERIFIED release ${NAME} has not been verified on test (requiresVerifiedOn in environments/prod.yaml)`;

const startOne = emulatorsPerTest();
const temp: string[] = [];
let registry: Registry | undefined;
afterAll(async () => {
  await registry?.stop();
  await Promise.all(temp.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "egp-pipeline-"));
  temp.push(dir);
  return dir;
}

async function emulator(seed: string): Promise<Emulator & { workDir: string }> {
  const workDir = await tempDir();
  const started = await startOne({ seed, workDir, jobs: { generateMs: 20, installMs: 20 } });
  return Object.assign(started, { workDir });
}

const packages = (e: Emulator) => Object.values(packagesOf(e.store).byId);
const installs = (e: Emulator) => packages(e).reduce((n, p) => n + p.Installs.length, 0);

/** The sha256 of every package file uploaded to an instance and installed there. */
async function installedDigests(e: Emulator & { workDir: string }): Promise<string[]> {
  const uploaded = packages(e).filter((p) => p.Origin === "Uploaded" && p.Installs.length > 0 && p.File);
  return Promise.all(
    uploaded.map(async (p) =>
      createHash("sha256")
        .update(await readFile(join(e.workDir, p.File as string)))
        .digest("hex"),
    ),
  );
}

async function storeOf(kind: "folder" | "oci"): Promise<string> {
  if (kind === "folder") return join(await tempDir(), "store");
  registry ??= await startRegistry();
  return `oci://${registry.host}/egp-pipeline-${randomBytes(4).toString("hex")}`;
}

const GIT_ENV = {
  PATH: process.env.PATH ?? "",
  GIT_CONFIG_NOSYSTEM: "1",
  HOME: tmpdir(),
  GIT_AUTHOR_NAME: "Release Engineer",
  GIT_AUTHOR_EMAIL: "release@example.com",
  GIT_COMMITTER_NAME: "Release Engineer",
  GIT_COMMITTER_EMAIL: "release@example.com",
};

function git(dir: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("git", args, { cwd: dir, env: GIT_ENV }, (error, stdout, stderr) =>
      error ? reject(new Error(`git ${args.join(" ")}: ${stderr}`)) : resolve(stdout.trim()),
    );
  });
}

/** A merged change: the files written on `branch` (main by default) and committed; its commit. */
async function commit(
  origin: string,
  files: Record<string, string>,
  message: string,
  branch = "main",
): Promise<string> {
  await git(origin, ["checkout", "--quiet", "-B", branch, "main"]);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(origin, path)), { recursive: true });
    await writeFile(join(origin, path), text);
  }
  await git(origin, ["add", "--all"]);
  await git(origin, ["commit", "--quiet", "-m", message]);
  const sha = await git(origin, ["rev-parse", "HEAD"]);
  await git(origin, ["checkout", "--quiet", "main"]);
  return sha;
}

const calls = (run: RunResult) => run.egp.map((call) => [call.job, call.args, call.code]);
const summaryOf = (run: RunResult, job: string) => run.job(job).summary;

describe("the release pipeline as CI runs it: saved plans, fresh runners, a shared store", () => {
  it.each(["folder", "oci"] as const)(
    "creates on dev, then test and prod each plan, wait for approval and apply the saved plan (%s store)",
    async (kind) => {
      const [dev, test, prod] = await Promise.all([
        emulator("demo-dev"),
        emulator("demo-prod"),
        emulator("demo-prod"),
      ]);
      const store = await storeOf(kind);
      const environments = {
        dev: environmentFile(dev.url, QUICK),
        test: environmentFile(test.url, QUICK),
        prod: environmentFile(prod.url, QUICK),
      };
      const origin = await testdir({
        "egp.yaml": `releases:\n  store: ${JSON.stringify(store)}\n  trustedKeys: [${JSON.stringify(KEYS.publicKey)}]\n`,
        ".gitignore": "plan-*.json\n",
        "manifests/packages.yaml": await readFile(join(ROOT, "manifests/packages.yaml"), "utf8"),
        "environments/dev.yaml": environments.dev,
        "environments/test.yaml": environments.test,
        "environments/prod.yaml": environments.prod,
      });
      await git(origin, ["init", "--quiet", "--initial-branch=main"]);
      await git(origin, ["add", "--all"]);
      await git(origin, ["commit", "--quiet", "-m", "environments and manifests"]);

      const approvals: Approval[] = [];
      const options = (sha: string) => ({
        origin,
        sha,
        secrets: SECRETS,
        approve: (approval: Approval) => {
          approvals.push(approval);
          return true;
        },
        github: {
          // GitHub's run approvals, as the apply job reads them: the reviewer of the environment.
          approvers: async ({ env }: { env: Record<string, string> }) => {
            await appendFile(
              env.GITHUB_OUTPUT as string,
              `approvers=reviewer-of-${env.EGP_CI_ENVIRONMENT}\n`,
            );
          },
        },
      });

      // 1. The release, built once on dev; its record is the pull request, merged.
      let record = "";
      const createdAt = await git(origin, ["rev-parse", "HEAD"]);
      const created = await runWorkflow(
        "example-release-create.yml",
        {
          ...options(createdAt),
          github: {
            "open-release-pr": async ({ workspace, env }) => {
              expect(env.RELEASE_NAME).toBe(NAME);
              record = await readFile(join(workspace, "releases", `${NAME}.yaml`), "utf8");
            },
          },
        },
        { name: NAME },
      );
      expect(created.egp.map((call) => [call.args, call.code])).toEqual([
        [`release create --from dev --name ${NAME}`, 0],
      ]);
      expect(created.job("create/create").result).toBe("success");
      const sha256 = /sha256: ([0-9a-f]{64})/.exec(record)?.[1];
      expect(sha256).toMatch(/^[0-9a-f]{64}$/);
      await commit(origin, { [`releases/${NAME}.yaml`]: record }, `Release ${NAME}`);

      // 2. prod named first, run by hand on that branch: refused until test verified the release.
      const prodNamed = `${environments.prod}release: ${NAME}\nrequiresVerifiedOn: [test]\n`;
      const early = await runWorkflow(
        "example-release-pipeline.yml",
        options(await commit(origin, { "environments/prod.yaml": prodNamed }, "prod first", "prod-first")),
      );
      const earlyProd = early.egp.find((call) => call.job === "prod/plan");
      expect(earlyProd?.code).toBe(1);
      expect(earlyProd?.stderr).toContain(GATE);
      expect(early.job("prod/plan").result).toBe("failure");
      expect(early.job("prod/apply").result).toBe("skipped");
      expect(installs(prod)).toBe(0);
      expect(approvals).toEqual([]);

      // 3. test names the release: dev has nothing to do, test is planned, approved and applied.
      const testNamed = `${environments.test}release: ${NAME}\n`;
      const firstAt = await commit(origin, { "environments/test.yaml": testNamed }, "test");
      const first = await runWorkflow("example-release-pipeline.yml", options(firstAt));
      const appliedTest = first.egp.find((call) => call.job === "test/apply");
      expect(appliedTest?.code, appliedTest?.stderr).toBe(0);
      expect(calls(first)).toEqual([
        ["dev/plan", "plan --env dev --format markdown --out plan-dev.json --detailed-exitcode", 0],
        ["test/plan", "plan --env test --format markdown --out plan-test.json --detailed-exitcode", 2],
        ["test/apply", "apply --env test plan-test.json", 0],
        ["prod/plan", "plan --env prod --format markdown --out plan-prod.json --detailed-exitcode", 0],
      ]);
      expect(appliedTest?.stdout + (appliedTest?.stderr ?? "")).toContain(
        `Verified: test runs release ${NAME}`,
      );
      expect(approvals.map((a) => [a.environment, a.job])).toEqual([["test", "test/apply"]]);
      // The reviewer of test has the plan of test to read.
      expect(approvals[0]?.summaries).toContain(summaryOf(first, "test/plan"));
      expect(summaryOf(first, "test/plan")).toContain(`release ${NAME}`);
      expect(await installedDigests(test)).toEqual([sha256]);
      expect(installs(prod)).toBe(0);

      // 4. prod names it: gated on test, which verified it; planned, approved, applied.
      const secondAt = await commit(origin, { "environments/prod.yaml": prodNamed }, "prod");
      const second = await runWorkflow("example-release-pipeline.yml", options(secondAt));
      const appliedProd = second.egp.find((call) => call.job === "prod/apply");
      expect(appliedProd?.code, appliedProd?.stderr).toBe(0);
      expect(calls(second)).toEqual([
        ["dev/plan", "plan --env dev --format markdown --out plan-dev.json --detailed-exitcode", 0],
        ["test/plan", "plan --env test --format markdown --out plan-test.json --detailed-exitcode", 0],
        ["prod/plan", "plan --env prod --format markdown --out plan-prod.json --detailed-exitcode", 2],
        ["prod/apply", "apply --env prod plan-prod.json", 0],
      ]);
      expect(approvals.map((a) => a.environment)).toEqual(["test", "prod"]);
      // The audit records of the applies name who approved each environment.
      const audit = await new Promise<string>((resolve) =>
        execFile(
          process.execPath,
          [join(ROOT, "bin", "egp.js"), "audit", "--format", "json", "--dir", origin],
          { env: { PATH: process.env.PATH ?? "" } },
          (_error, stdout) => resolve(stdout),
        ),
      );
      const applies = (
        JSON.parse(audit) as { records: { action: string; environment: string; approvers?: string[] }[] }
      ).records.filter((r) => r.action === "apply");
      expect(applies.map((r) => [r.environment, r.approvers])).toEqual([
        ["test", ["reviewer-of-test"]],
        ["prod", ["reviewer-of-prod"]],
      ]);
      expect(await installedDigests(prod)).toEqual([sha256]);
      expect(await installedDigests(test)).toEqual([sha256]);

      // Every job ran the egp of the commit the caller's `uses:` resolved to, with no egp-ref given.
      for (const [run, sha] of [
        [created, createdAt],
        [first, firstAt],
        [second, secondAt],
      ] as const) {
        const ran = run.jobs.filter((job) => job.result !== "skipped");
        expect(ran.flatMap((job) => job.egpCheckouts)).toEqual(
          ran.map(() => ({ repository: "acme/grc-config", ref: sha })),
        );
      }
    },
    300_000,
  );
});

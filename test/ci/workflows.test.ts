// biome-ignore-all lint/suspicious/noTemplateCurlyInString: GitHub expressions, compared as the text of the workflow files.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { validateAction, validateWorkflow } from "@action-validator/core";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "../helpers/cli.ts";
import { interpolate } from "../helpers/expressions.ts";

/*
 * Every workflow and action file, against GitHub's schemas (action-validator, offline, from npm ci),
 * then the rules the schemas can't know: glue in scripts/ci rather than inline shell, exit codes
 * read rather than swallowed, one concurrency group per environment for the jobs that change it, the
 * reviewed plan applied, egp at the caller's pinned commit.
 */

// biome-ignore lint/suspicious/noExplicitAny: workflow files are read loosely, as YAML.
type Yaml = any;

const WORKFLOWS = join(ROOT, ".github", "workflows");
const ACTION = join(ROOT, ".github", "actions", "egp", "action.yml");
const EGP_ACTION = "./.egp-tool/.github/actions/egp";
const workflowFiles = readdirSync(WORKFLOWS).filter((name) => /\.ya?ml$/.test(name));
const read = (path: string): Yaml => parse(readFileSync(path, "utf8"));
const workflow = (name: string): Yaml => read(join(WORKFLOWS, name));

interface Step {
  file: string;
  job: string;
  step: Yaml;
}

function stepsOf(file: string): Step[] {
  const doc = workflow(file);
  return Object.entries(doc.jobs as Record<string, Yaml>).flatMap(([job, body]) =>
    (body.steps ?? []).map((step: Yaml) => ({ file, job, step })),
  );
}

const allSteps = workflowFiles.flatMap(stepsOf);
const actionSteps: Yaml[] = read(ACTION).runs.steps;
/** Whether a step runs that third-party action, at whatever pinned commit. */
const uses = (step: Yaml, action: string): boolean => String(step.uses ?? "").startsWith(`${action}@`);
const egpSteps = allSteps.filter((s) => s.step.uses === EGP_ACTION);

describe("GitHub's schema", () => {
  it("finds the workflows and the action", () => {
    expect(workflowFiles).toEqual(
      expect.arrayContaining(["ci.yml", "egp-plan.yml", "egp-drift.yml", "egp-promote.yml"]),
    );
    expect(existsSync(ACTION)).toBe(true);
  });

  it.each(workflowFiles)("accepts .github/workflows/%s", (name) => {
    expect(validateWorkflow(readFileSync(join(WORKFLOWS, name), "utf8")).errors).toEqual([]);
  });

  it("accepts .github/actions/egp/action.yml", () => {
    expect(validateAction(readFileSync(ACTION, "utf8")).errors).toEqual([]);
  });

  it("is really checked: a misspelt key and a composite step without a shell are refused", () => {
    const ci = readFileSync(join(WORKFLOWS, "ci.yml"), "utf8");
    expect(validateWorkflow(ci.replace("runs-on:", "runs_on:")).errors).not.toEqual([]);
    const action = readFileSync(ACTION, "utf8");
    expect(validateAction(action.replace(/^\s+shell: bash\n/m, "")).errors).not.toEqual([]);
  });
});

describe("glue lives in scripts, not in inline shell", () => {
  const runs = [
    ...allSteps
      .filter((s) => s.step.run)
      .map((s) => ({ where: `${s.file} ${s.job}`, run: s.step.run as string })),
    ...actionSteps.filter((s) => s.run).map((s) => ({ where: "action.yml", run: s.run as string })),
  ];

  it.each(runs)("$where: `$run` is one line calling node or npm, with no expression in it", ({ run }) => {
    expect(run.trim()).not.toContain("\n");
    expect(run).toMatch(/^(node|npm) /);
    // Values come in through env, so that no input or output is ever pasted into shell code.
    expect(run).not.toContain("${{");
  });

  it("calls only scripts that exist", () => {
    const scripts = runs.flatMap(({ run }) =>
      [...run.matchAll(/scripts\/ci\/([\w-]+\.ts)/g)].map((m) => m[1]),
    );
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts)
      expect(existsSync(join(ROOT, "scripts", "ci", script as string))).toBe(true);
  });

  it("uses local actions and workflows that exist", () => {
    for (const { step } of allSteps.filter((s) => s.step.uses?.startsWith("./"))) {
      expect(step.uses).toBe("./.egp-tool/.github/actions/egp");
    }
    for (const name of workflowFiles) {
      for (const job of Object.values(workflow(name).jobs as Record<string, Yaml>)) {
        if (typeof job.uses === "string" && job.uses.startsWith("./"))
          expect(existsSync(join(ROOT, job.uses))).toBe(true);
      }
    }
  });

  const ALL_SECRETS = "${{ toJSON(secrets) }}";
  // A pull request that changes the environment files is previewed without credentials.
  const PREVIEW_SECRETS =
    "${{ steps.base.outputs.environments-changed == 'true' && '{}' || toJSON(secrets) }}";

  it("passes the secrets JSON only to the egp action's `secrets` input", () => {
    for (const { step } of allSteps) {
      for (const [name, value] of Object.entries({ ...step.env, ...step.with })) {
        if (String(value).includes("secrets")) {
          expect(name).toBe("secrets");
          expect(step.uses).toBe("./.egp-tool/.github/actions/egp");
          expect([ALL_SECRETS, PREVIEW_SECRETS]).toContain(value);
        }
      }
    }
    expect(egpSteps.every((s) => [ALL_SECRETS, PREVIEW_SECRETS].includes(s.step.with?.secrets))).toBe(true);
    const preview = stepsOf("egp-plan.yml").find((s) => s.step.id === "plan")?.step;
    expect(preview.with.secrets).toBe(PREVIEW_SECRETS);
  });

  it("puts the secrets JSON in the environment of the step that runs egp only, not of setup or install", () => {
    const action = read(ACTION);
    expect(action.inputs.secrets.default).toBe("{}");
    const withSecrets = actionSteps.filter((step) => JSON.stringify(step).includes("inputs.secrets"));
    expect(withSecrets.map((step) => step.id)).toEqual(["egp"]);
    expect(withSecrets[0].env.EGP_CI_SECRETS).toBe("${{ inputs.secrets }}");
    expect(withSecrets[0].run).toContain("scripts/ci/run-egp.ts");
  });
});

describe("third-party actions", () => {
  const files = [...workflowFiles.map((name) => join(WORKFLOWS, name)), ACTION];
  const lines = files.flatMap((file) =>
    readFileSync(file, "utf8")
      .split("\n")
      .map((line) => ({ file, line }))
      .filter(({ line }) => /^\s*(-\s+)?uses:\s+[^.\s]/.test(line)),
  );

  it("are found", () => {
    expect(lines.length).toBeGreaterThanOrEqual(10);
  });

  it.each(lines)("$line is pinned by commit SHA, with its tag in a comment", ({ line }) => {
    // A tag can be moved to other code; a commit can't. The comment says which release it is.
    expect(line).toMatch(/uses:\s+[\w.-]+\/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
  });
});

describe("exit codes are read, never swallowed", () => {
  it("has no continue-on-error anywhere", () => {
    for (const name of workflowFiles)
      expect(readFileSync(join(WORKFLOWS, name), "utf8")).not.toContain("continue-on-error");
    expect(readFileSync(ACTION, "utf8")).not.toContain("continue-on-error");
  });

  it("lets plan and drift steps pass on 0 and 2 only, and steps that change something on 0 only", () => {
    expect(egpSteps.length).toBeGreaterThanOrEqual(6);
    const changes = ["apply", "rollback", "verify", "${{ steps.release.outputs.args }}"];
    for (const { step } of egpSteps) {
      const args = String(step.with.args);
      if (changes.some((command) => args.startsWith(command)))
        expect(step.with["allowed-exit-codes"]).toBeUndefined();
      else expect(step.with["allowed-exit-codes"]).toBe("0,2");
    }
    expect(read(ACTION).inputs["allowed-exit-codes"].default).toBe("0");
  });

  it("hands the exit code to the comment and issue scripts even when the egp step failed", () => {
    for (const [file, id, script] of [
      ["egp-plan.yml", "plan", "post-plan-comment.ts"],
      ["egp-drift.yml", "drift", "sync-drift-issue.ts"],
    ] as const) {
      const step = stepsOf(file).find((s) => s.step.run?.includes(script))?.step;
      expect(step.if).toBe(`\${{ !cancelled() && steps.${id}.outputs.exit-code != '' }}`);
      expect(step.env.EXIT_CODE).toBe(`\${{ steps.${id}.outputs.exit-code }}`);
      expect(step.env.GITHUB_TOKEN).toBe("${{ github.token }}");
    }
    expect(read(ACTION).outputs["exit-code"].value).toBe("${{ steps.egp.outputs.exit-code }}");
  });
});

const REUSABLE = workflowFiles.filter((name) => workflow(name).on?.workflow_call);
const RUNS_ON =
  "${{ (startsWith(inputs.runs-on, '[') || startsWith(inputs.runs-on, '{')) && fromJSON(inputs.runs-on) || inputs.runs-on }}";

describe("reusable workflows", () => {
  it("are the three of plans and promotion, the three of releases, and status", () => {
    expect(REUSABLE.sort()).toEqual([
      "egp-drift.yml",
      "egp-plan.yml",
      "egp-promote.yml",
      "egp-release-apply.yml",
      "egp-release-create.yml",
      "egp-rollback.yml",
      "egp-status.yml",
    ]);
  });

  it.each([
    ["egp-plan.yml", []],
    // Drift hashes sensitive values under a key derived from the store's signing key.
    ["egp-drift.yml", ["EGP_SIGNING_KEY"]],
    // A promotion writes install history to the store: its records are signed.
    ["egp-promote.yml", ["EGP_SIGNING_KEY"]],
  ])("%s is called with inputs and secrets", (name, more) => {
    const call = workflow(name).on.workflow_call;
    expect(Object.keys(call.inputs)).toEqual(
      expect.arrayContaining(["working-directory", "egp-repository", "egp-ref", "node-version"]),
    );
    expect(Object.keys(call.secrets)).toEqual([
      "EGP_SECRETS",
      "EGP_DEV_PASSWORD",
      "EGP_PROD_PASSWORD",
      ...more,
    ]);
  });

  it.each(["egp-release-create.yml", "egp-release-apply.yml", "egp-rollback.yml"])(
    "%s is called with inputs, and the release store's credentials among its secrets",
    (name) => {
      const call = workflow(name).on.workflow_call;
      expect(Object.keys(call.inputs)).toEqual(
        expect.arrayContaining(["working-directory", "egp-repository", "egp-ref", "node-version"]),
      );
      expect(Object.keys(call.secrets)).toEqual([
        "EGP_SECRETS",
        "EGP_DEV_PASSWORD",
        "EGP_PROD_PASSWORD",
        "EGP_SIGNING_KEY",
        "EGP_STORE_USERNAME",
        "EGP_STORE_PASSWORD",
      ]);
    },
  );

  it.each(REUSABLE)("%s lets the caller choose the runner: runs-on is an input of every job", (name) => {
    const doc = workflow(name);
    const input = doc.on.workflow_call.inputs["runs-on"];
    expect(input).toMatchObject({ type: "string", required: false, default: "ubuntu-latest" });
    const jobs = Object.values(doc.jobs as Record<string, Yaml>);
    expect(jobs.map((job) => job["runs-on"])).toEqual(jobs.map(() => RUNS_ON));
  });

  it("creates a release from the checked inputs and opens a pull request with its record", () => {
    const doc = workflow("egp-release-create.yml");
    expect(doc.permissions).toEqual({ contents: "write", "pull-requests": "write" });
    const steps = doc.jobs.create.steps as Yaml[];
    const check = steps.findIndex((step) => step.id === "release");
    const create = steps.findIndex((step) => step.with?.args === "${{ steps.release.outputs.args }}");
    const pr = steps.findIndex((step) => String(step.run).includes("scripts/ci/open-release-pr.ts"));
    expect(steps[check].run).toBe("node .egp-tool/scripts/ci/release-args.ts");
    expect(steps[check].env).toEqual({
      RELEASE_FROM: "${{ inputs.from-environment }}",
      RELEASE_NAME: "${{ inputs.name }}",
      RELEASE_TARGETS: "${{ inputs.targets }}",
    });
    expect([check < create, create < pr]).toEqual([true, true]);
    expect(steps[pr].env.GITHUB_TOKEN).toBe("${{ github.token }}");
    expect(doc.jobs.create.concurrency).toEqual({
      group: "egp-${{ inputs.from-environment }}",
      "cancel-in-progress": false,
    });
  });

  it("applies a release behind the environment's GitHub reviewers: plan, then the reviewed plan", () => {
    const { jobs } = workflow("egp-release-apply.yml");
    expect(jobs.apply.environment).toBe("${{ inputs.github-environment || inputs.environment }}");
    expect(jobs.plan.environment).toBeUndefined();
    expect(jobs.apply.needs).toBe("plan");
    expect(jobs.apply.if).toBe("${{ needs.plan.outputs.exit-code == '2' }}");
    expect(jobs.apply.concurrency).toEqual({
      group: "egp-${{ inputs.environment }}",
      "cancel-in-progress": false,
    });
    expect(jobs.plan.concurrency).toBeUndefined();
    const planFile = "plan-${{ inputs.environment }}.json";
    const plan = jobs.plan.steps.find((s: Yaml) => s.id === "plan");
    expect(plan.with.args).toBe(
      `plan --env \${{ inputs.environment }} --format markdown --out ${planFile} --detailed-exitcode`,
    );
    const upload = jobs.plan.steps.find((s: Yaml) => uses(s, "actions/upload-artifact"));
    const download = jobs.apply.steps.find((s: Yaml) => uses(s, "actions/download-artifact"));
    expect(download.with.name).toBe(upload.with.name);
    const apply = jobs.apply.steps.find((s: Yaml) => String(s.with?.args).startsWith("apply"));
    expect(apply.with.args).toBe(`apply --env \${{ inputs.environment }} ${planFile}`);
  });

  it("verifies a release after its soak: a wait in no group, then `egp verify --env E` in the environment's", () => {
    const { jobs } = workflow("egp-release-apply.yml");
    expect(jobs.soak.needs).toBe("apply");
    expect(jobs.soak.if).toBe("${{ inputs.verify-after != '' && needs.apply.result == 'success' }}");
    expect(jobs.soak.concurrency).toBeUndefined();
    const wait = (jobs.soak.steps as Yaml[]).find((s) => s.run);
    expect(wait).toMatchObject({
      run: "node .egp-tool/scripts/ci/soak-wait.ts",
      env: { SOAK: "${{ inputs.verify-after }}" },
    });
    expect(jobs.verify.needs).toBe("soak");
    const verify = jobs.verify.steps.find((s: Yaml) => String(s.with?.args).startsWith("verify"));
    expect(verify.with.args).toBe("verify --env ${{ inputs.environment }}");
    expect(workflow("egp-release-apply.yml").on.workflow_call.inputs["verify-after"]).toMatchObject({
      type: "string",
      default: "",
    });
  });

  it("records who approved the release's environment: the run's approvals reach egp as EGP_APPROVERS", () => {
    const { jobs } = workflow("egp-release-apply.yml");
    expect(jobs.apply.permissions).toEqual({ contents: "read", actions: "read" });
    const steps = jobs.apply.steps as Yaml[];
    const read = steps.findIndex((s) => s.id === "approvers");
    const apply = steps.findIndex((s) => String(s.with?.args).startsWith("apply"));
    expect(steps[read].run).toBe("node .egp-tool/scripts/ci/approvers.ts");
    expect(steps[read].env).toEqual({
      GITHUB_TOKEN: "${{ github.token }}",
      EGP_CI_ENVIRONMENT: "${{ inputs.github-environment || inputs.environment }}",
    });
    expect(read).toBeLessThan(apply);
    expect(steps[apply].env).toEqual({ EGP_APPROVERS: "${{ steps.approvers.outputs.approvers }}" });
    // A caller's permissions cap the called workflow's: the example pipeline grants the read.
    expect(workflow("example-release-pipeline.yml").permissions).toEqual({
      contents: "read",
      actions: "read",
    });
  });

  it.each(REUSABLE)("%s takes the secrets of any stage names: EGP_SECRETS carries them", (name) => {
    const secrets = workflow(name).on.workflow_call.secrets;
    expect(secrets.EGP_SECRETS).toMatchObject({ required: false });
  });

  it("rolls back behind the environment's GitHub reviewers, with `egp rollback --env E`", () => {
    const { jobs } = workflow("egp-rollback.yml");
    expect(jobs.rollback.environment).toBe("${{ inputs.github-environment || inputs.environment }}");
    const step = jobs.rollback.steps.find((s: Yaml) => String(s.with?.args).startsWith("rollback"));
    expect(step.with.args).toBe(
      "rollback --env ${{ inputs.environment }} --yes${{ inputs.to != '' && format(' --to {0}', inputs.to) || '' }}",
    );
  });

  it("shows a pipeline of dev, test and prod, one apply after the other", () => {
    const { jobs } = workflow("example-release-pipeline.yml");
    expect(Object.keys(jobs)).toEqual(["dev", "test", "prod"]);
    expect([jobs.test.needs, jobs.prod.needs]).toEqual(["dev", "test"]);
    for (const [name, job] of Object.entries(jobs as Record<string, Yaml>)) {
      expect(job.uses).toBe("./.github/workflows/egp-release-apply.yml");
      expect(job.with.environment).toBe(name);
    }
  });

  it("plans a matrix of environments on pull requests and uploads the plan files", () => {
    const doc = workflow("egp-plan.yml");
    expect(doc.jobs.plan.strategy.matrix.environment).toBe("${{ fromJSON(inputs.environments) }}");
    expect(doc.permissions).toEqual({ contents: "read", "pull-requests": "write" });
    const plan = stepsOf("egp-plan.yml").find((s) => s.step.id === "plan")?.step;
    expect(plan.with.args).toBe(
      "${{ steps.base.outputs.environments-changed == 'true' && 'validate' || format('plan --env {0} --format markdown --out plan-{0}.json --detailed-exitcode', matrix.environment) }}",
    );
    // Before egp runs, a pull request's environment files are replaced by the base branch's.
    const steps = stepsOf("egp-plan.yml").map((s) => s.step);
    const base = steps.findIndex((step) => step.with?.ref === "${{ github.event.pull_request.base.sha }}");
    const swap = steps.findIndex((step) => step.id === "base");
    expect(steps[base].with.path).toBe(".egp-base");
    expect(steps[swap].run).toContain("scripts/ci/base-environments.ts --base .egp-base");
    expect([base < swap, swap < steps.findIndex((step) => step.id === "plan")]).toEqual([true, true]);
    const upload = stepsOf("egp-plan.yml").find((s) => uses(s.step, "actions/upload-artifact"))?.step;
    expect(upload.with.path).toBe("${{ inputs.working-directory }}/plan-${{ matrix.environment }}.json");
  });

  it("checks drift per environment in a group of drift checks", () => {
    const job = workflow("egp-drift.yml").jobs.drift;
    expect(job.strategy.matrix.environment).toBe("${{ fromJSON(inputs.environments) }}");
    expect(job.concurrency).toEqual({
      group: "egp-drift-${{ matrix.environment }}",
      "cancel-in-progress": false,
    });
  });

  it("promotes dev then prod, prod behind its GitHub environment, applying the plan reviewed in the same run", () => {
    const { jobs } = workflow("egp-promote.yml");
    expect(jobs["plan-target"].needs).toBe("source");
    expect(jobs["apply-target"].needs).toBe("plan-target");
    expect(jobs["apply-target"].environment).toBe("${{ inputs.target-github-environment }}");
    expect(jobs["apply-target"].if).toBe("${{ needs.plan-target.outputs.exit-code == '2' }}");
    expect(jobs["plan-target"].concurrency).toBeUndefined();
    for (const [job, env] of [
      ["source", "source"],
      ["apply-target", "target"],
    ]) {
      expect(jobs[job as string].concurrency).toEqual({
        group: `egp-\${{ inputs.${env}-environment }}`,
        "cancel-in-progress": false,
      });
    }
    const planFile = "plan-${{ inputs.target-environment }}.json";
    const plan = jobs["plan-target"].steps.find((s: Yaml) => s.id === "plan");
    expect(plan.with.args).toContain(`--out ${planFile}`);
    const upload = jobs["plan-target"].steps.find((s: Yaml) => uses(s, "actions/upload-artifact"));
    const download = jobs["apply-target"].steps.find((s: Yaml) => uses(s, "actions/download-artifact"));
    expect(download.with.name).toBe(upload.with.name);
    const apply = jobs["apply-target"].steps.find((s: Yaml) => String(s.with?.args).startsWith("apply"));
    expect(apply.with.args).toBe(`apply --env \${{ inputs.target-environment }} ${planFile}`);
    const sourceApply = jobs.source.steps.find((s: Yaml) => String(s.with?.args).startsWith("apply"));
    expect(sourceApply.with.args).toBe(
      "apply --env ${{ inputs.source-environment }} plan-${{ inputs.source-environment }}.json",
    );
  });
});

describe("the project's own CI", () => {
  it("runs npm ci, typecheck, lint and test on Node 24, on push and pull request", () => {
    const doc = workflow("ci.yml");
    expect(Object.keys(doc.on)).toEqual(expect.arrayContaining(["push", "pull_request"]));
    const steps = stepsOf("ci.yml").map((s) => s.step);
    expect(steps.find((s) => uses(s, "actions/setup-node"))?.with["node-version"]).toBe("24");
    expect(steps.filter((s) => s.run).map((s) => s.run)).toEqual([
      "npm ci --no-audit --no-fund",
      "npm run ensure-registry",
      "npm run typecheck",
      "npm run lint",
      "npm test",
    ]);
  });
});

describe("the status report", () => {
  it("is reusable, runs where the caller says, and writes the markdown to the job summary", () => {
    const doc = workflow("egp-status.yml");
    const call = doc.on.workflow_call;
    expect(Object.keys(call.inputs)).toEqual(
      expect.arrayContaining(["environments", "working-directory", "egp-repository", "egp-ref", "runs-on"]),
    );
    expect(call.inputs["runs-on"].default).toBe("ubuntu-latest");
    expect(doc.jobs.status["runs-on"]).toBe(RUNS_ON);
    expect(doc.permissions).toEqual({ contents: "read" });
    const status = stepsOf("egp-status.yml").find((s) => s.step.id === "status")?.step;
    expect(String(status.with.args)).toMatch(/^status --format markdown --html egp-status\.html/);
    expect(status.with.summary).toBe("markdown");
    expect(status.with["allowed-exit-codes"]).toBe("0,2");
    const upload = stepsOf("egp-status.yml").find((s) => uses(s.step, "actions/upload-artifact"))?.step;
    expect(upload.if).toBe("${{ !cancelled() && steps.status.outputs.exit-code != '' }}");
    expect(upload.with.path).toBe("${{ inputs.working-directory }}/egp-status.html");
  });

  it("is scheduled by the example", () => {
    const doc = workflow("example-status.yml");
    expect(doc.on.schedule).toHaveLength(1);
    expect(doc.jobs.status.uses).toBe("./.github/workflows/egp-status.yml");
  });
});

describe("egp runs at the ref the caller pinned in `uses:`", () => {
  const SHA = "0123456789abcdef0123456789abcdef01234567";
  // The called workflow's own identity, as GitHub gives it to a job of a reusable workflow.
  const JOB = {
    workflow_repository: "acme/egp",
    workflow_sha: SHA,
    workflow_ref: "acme/egp/.github/workflows/egp-plan.yml@refs/tags/v1",
  };
  const egpCheckouts = (name: string) =>
    stepsOf(name).filter((s) => uses(s.step, "actions/checkout") && s.step.with?.path === ".egp-tool");

  it.each(REUSABLE)("%s: egp-repository and egp-ref are optional and empty by default", (name) => {
    const inputs = workflow(name).on.workflow_call.inputs;
    expect(inputs["egp-repository"]).toMatchObject({ type: "string", required: false, default: "" });
    expect(inputs["egp-ref"]).toMatchObject({ type: "string", required: false, default: "" });
  });

  it.each(REUSABLE)("%s checks egp out at the called workflow's own commit unless told otherwise", (name) => {
    const checkouts = egpCheckouts(name);
    expect(checkouts.length).toBeGreaterThan(0);
    for (const { step } of checkouts) {
      const at = (inputs: Record<string, string>, job: Record<string, string>) => ({
        repository: interpolate(step.with.repository, { inputs, job }),
        ref: interpolate(step.with.ref, { inputs, job }),
      });
      expect(at({ "egp-repository": "", "egp-ref": "" }, JOB)).toEqual({ repository: "acme/egp", ref: SHA });
      expect(at({ "egp-repository": "fork/egp", "egp-ref": "v1.2.0" }, JOB)).toEqual({
        repository: "fork/egp",
        ref: "v1.2.0",
      });
      // A GitHub whose job context lacks the called workflow's commit: the checkout fails and names
      // the input, instead of taking the default branch.
      expect(at({ "egp-repository": "acme/egp", "egp-ref": "" }, {}).ref).toBe("give-the-egp-ref-input");
    }
  });

  it("no workflow defaults to a branch of egp, and the examples leave the ref to GitHub", () => {
    for (const name of workflowFiles)
      expect(readFileSync(join(WORKFLOWS, name), "utf8")).not.toMatch(/default: main\b/);
    for (const name of workflowFiles.filter((n) => n.startsWith("example-"))) {
      for (const job of Object.values(workflow(name).jobs as Record<string, Yaml>)) {
        expect(job.uses).toMatch(/^\.\/\.github\/workflows\/egp-/);
        expect(Object.keys(job.with ?? {})).not.toContain("egp-ref");
        expect(Object.keys(job.with ?? {})).not.toContain("egp-repository");
      }
    }
  });
});

describe("concurrency: a queued read never replaces a pending apply", () => {
  // Commands that change an instance or what the store says of it; everything else egp runs in a
  // workflow only reads.
  const WRITES = ["apply", "rollback", "verify", "${{ steps.release.outputs.args }}"];
  const jobs = workflowFiles.flatMap((file) =>
    Object.entries(workflow(file).jobs as Record<string, Yaml>)
      .filter(([, job]) => Array.isArray(job.steps))
      .map(([name, job]) => ({
        where: `${file} ${name}`,
        job,
        egp: (job.steps as Yaml[]).filter((s) => s.uses === EGP_ACTION).map((s) => String(s.with.args)),
      }))
      .filter((j) => j.egp.length > 0),
  );
  const writes = jobs.filter((j) => j.egp.some((args) => WRITES.some((w) => args.startsWith(w))));
  const reads = jobs.filter((j) => !writes.includes(j));
  // Every way the workflows name an environment, set to the same one.
  const CONTEXTS = {
    inputs: {
      environment: "prod",
      "source-environment": "prod",
      "target-environment": "prod",
      "from-environment": "prod",
      "working-directory": ".",
    },
    matrix: { environment: "prod" },
    github: { ref: "refs/heads/main", event: {}, workflow: "w" },
  };
  const groupOf = (job: Yaml): string | undefined =>
    job.concurrency === undefined ? undefined : String(interpolate(job.concurrency.group, CONTEXTS));

  it("finds the jobs that write and those that only read", () => {
    expect(writes.map((j) => j.where).sort()).toEqual([
      "egp-promote.yml apply-target",
      "egp-promote.yml source",
      "egp-release-apply.yml apply",
      "egp-release-apply.yml verify",
      "egp-release-create.yml create",
      "egp-rollback.yml rollback",
    ]);
    expect(reads.map((j) => j.where).sort()).toEqual([
      "egp-drift.yml drift",
      "egp-plan.yml plan",
      "egp-promote.yml plan-target",
      "egp-release-apply.yml plan",
      "egp-status.yml status",
    ]);
  });

  it.each(writes)("$where queues in its environment's group, never cancelled", ({ job }) => {
    expect(groupOf(job)).toBe("egp-prod");
    expect(job.concurrency["cancel-in-progress"]).toBe(false);
  });

  it.each(reads)("$where is in no group of a job that writes", ({ job }) => {
    // GitHub keeps one pending job per group and a newer one replaces it: a read in the writes'
    // group would drop a pending apply.
    expect(writes.map((w) => groupOf(w.job))).not.toContain(groupOf(job));
  });
});

describe("the examples run when their comments say", () => {
  it("the release pipeline runs on merges to main that change its environments, a release or egp.yaml", () => {
    const doc = workflow("example-release-pipeline.yml");
    expect(readFileSync(join(WORKFLOWS, "example-release-pipeline.yml"), "utf8")).toMatch(
      /^# A pipeline .*when a merge to main changes/,
    );
    const environments = Object.values(doc.jobs as Record<string, Yaml>).map(
      (job) => `environments/${job.with.environment}.yaml`,
    );
    expect(doc.on.push).toEqual({ branches: ["main"], paths: [...environments, "releases/**", "egp.yaml"] });
    expect(Object.keys(doc.on)).toContain("workflow_dispatch");
  });
});

import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { afterAll } from "vitest";
import { parse } from "yaml";
import { parseOutputs } from "../ci/scripts.ts";
import { ROOT } from "./cli.ts";
import { asText, type Contexts, interpolate, isTruthy, type Value } from "./expressions.ts";

/*
 * GitHub Actions, as far as the project's workflows need it, on this machine: a workflow's jobs in
 * `needs` order, a local reusable workflow (`uses: ./.github/workflows/…`) as the jobs it holds,
 * and each job on a fresh runner: a new workspace, HOME and temp folder, the repository cloned at
 * the run's commit (so `.egp/` starts empty), egp "checked out" as a link to this checkout, the egp
 * action run as its composite step runs it (scripts/ci/run-egp.ts, with the env its action.yml
 * gives, so the built bin/egp.js; no manifest cache is restored), artifacts as folders passed
 * between jobs, and a job with `environment:` waiting for approve(). A step or key the runner does
 * not know throws, so that a workflow changed beyond it fails the test rather than being skipped.
 */

// biome-ignore lint/suspicious/noExplicitAny: workflow files are read loosely, as YAML.
type Yaml = any;

const EGP_ACTION = "./.egp-tool/.github/actions/egp";
const JOB_KEYS = new Set([
  "name",
  "needs",
  "if",
  "runs-on",
  "timeout-minutes",
  "concurrency",
  "outputs",
  "steps",
  "environment",
  "permissions",
  "uses",
  "with",
  "secrets",
]);

const temp: string[] = [];
afterAll(() => Promise.all(temp.splice(0).map((dir) => rm(dir, { recursive: true, force: true }))));

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  temp.push(dir);
  return dir;
}

export interface Approval {
  /** The GitHub environment the job runs in. */
  environment: string;
  /** The job, as `caller/called` (`test/apply`). */
  job: string;
  /** The job summaries of the run so far, in order: what a reviewer reads before approving. */
  summaries: string[];
}

export interface RunnerOptions {
  /** The repository the workflows run on: a git repository whose branch `main` is the default. */
  origin: string;
  /** The commit the run is for (`github.sha`). */
  sha: string;
  secrets: Record<string, string>;
  /** A reviewer of GitHub environments: true approves the job, false rejects it. */
  approve(approval: Approval): boolean | Promise<boolean>;
  /**
   * Steps that talk to GitHub's API (open a pull request), by script name: what the test does in
   * their place. Any other `run:` step runs as written.
   */
  github?: Record<string, (step: { workspace: string; env: Record<string, string> }) => Promise<void>>;
  /** The variables every step sees (the runner's own environment), beside the runner's files. */
  env?: Record<string, string>;
}

export interface EgpCall {
  job: string;
  args: string;
  code: number;
  stdout: string;
  stderr: string;
}

export interface JobResult {
  job: string;
  result: "success" | "failure" | "skipped";
  outputs: Record<string, string>;
  summary: string;
  /** Where the job checked egp out from: the repository and ref its checkout step was given. */
  egpCheckouts: { repository: string; ref: string }[];
}

export interface RunResult {
  jobs: JobResult[];
  egp: EgpCall[];
  /** Name → folder of the run's artifacts. */
  artifacts: Map<string, string>;
  job(name: string): JobResult;
}

/** A workflow file: a path of this checkout (`.github/workflows/…`), or an absolute one (a test's caller). */
const workflowOf = async (path: string): Promise<Yaml> =>
  parse(await readFile(isAbsolute(path) ? path : join(ROOT, path), "utf8"));

function order(jobs: Record<string, Yaml>): string[] {
  const done: string[] = [];
  const visit = (name: string, path: string[]) => {
    if (done.includes(name)) return;
    if (path.includes(name)) throw new Error(`needs form a cycle: ${[...path, name].join(" → ")}`);
    const job = jobs[name];
    if (!job) throw new Error(`needs names no job: ${name}`);
    for (const need of needsOf(job)) visit(need, [...path, name]);
    done.push(name);
  };
  for (const name of Object.keys(jobs)) visit(name, []);
  return done;
}

const needsOf = (job: Yaml): string[] => (job.needs === undefined ? [] : [job.needs].flat());

function run(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { ...options, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

const stringsOf = (record: Record<string, Value>): Record<string, string> =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, asText(value)]));

class Runner {
  readonly jobs: JobResult[] = [];
  readonly egp: EgpCall[] = [];
  readonly artifacts = new Map<string, string>();

  private readonly options: RunnerOptions;

  constructor(options: RunnerOptions) {
    this.options = options;
  }

  github(extra: Record<string, Value> = {}): Record<string, Value> {
    return {
      sha: this.options.sha,
      repository: "acme/grc-config",
      ref: "refs/heads/main",
      token: "stand-in-token",
      event_name: "push",
      workflow_sha: this.options.sha,
      event: { repository: { default_branch: "main" } },
      ...extra,
    };
  }

  /** Runs a workflow file's jobs; `inputs` are a dispatch's inputs. */
  async workflow(path: string, inputs: Record<string, Value> = {}): Promise<void> {
    const doc = await workflowOf(path);
    const contexts: Contexts = { github: this.github(), inputs, secrets: this.options.secrets };
    await this.jobsOf(doc.jobs, contexts, "");
  }

  private async jobsOf(jobs: Record<string, Yaml>, contexts: Contexts, prefix: string): Promise<string> {
    const results = new Map<string, JobResult[]>();
    for (const name of order(jobs)) {
      const job = jobs[name];
      const unknown = Object.keys(job).filter((key) => !JOB_KEYS.has(key));
      if (unknown.length > 0) throw new Error(`job ${name}: the runner does not know ${unknown.join(", ")}`);
      const needs = Object.fromEntries(
        needsOf(job).map((need) => {
          const of = results.get(need) ?? [];
          const result = of.some((r) => r.result === "failure")
            ? "failure"
            : of.every((r) => r.result === "skipped")
              ? "skipped"
              : "success";
          return [need, { result, outputs: Object.assign({}, ...of.map((r) => r.outputs)) }];
        }),
      );
      const blocked = Object.values(needs).some((need) => need.result !== "success");
      const condition = job.if === undefined ? true : interpolate(job.if, { ...contexts, needs });
      if (blocked || !isTruthy(condition)) {
        results.set(name, [this.record({ job: prefix + name, result: "skipped" })]);
        continue;
      }
      if (typeof job.uses === "string") {
        results.set(name, await this.called(name, job, { ...contexts, needs }));
        continue;
      }
      results.set(name, [await this.job(prefix + name, job, { ...contexts, needs })]);
    }
    return [...results.values()].flat().some((r) => r.result === "failure") ? "failure" : "success";
  }

  private record(partial: Partial<JobResult> & Pick<JobResult, "job" | "result">): JobResult {
    const result = { outputs: {}, summary: "", egpCheckouts: [], ...partial };
    this.jobs.push(result);
    return result;
  }

  /** A job that calls a reusable workflow of this repository, at the run's commit. */
  private async called(name: string, job: Yaml, contexts: Contexts): Promise<JobResult[]> {
    if (!job.uses.startsWith("./.github/workflows/"))
      throw new Error(`job ${name}: only local reusable workflows run here, not ${job.uses}`);
    const doc = await workflowOf(job.uses.slice(2));
    const declared: Record<string, Yaml> = doc.on.workflow_call.inputs ?? {};
    const given = Object.fromEntries(
      Object.entries((job.with ?? {}) as Record<string, unknown>).map(([key, value]) => [
        key,
        interpolate(value, contexts),
      ]),
    );
    for (const key of Object.keys(given))
      if (!(key in declared)) throw new Error(`job ${name}: ${job.uses} has no input ${key}`);
    const inputs = Object.fromEntries(
      Object.entries(declared).map(([key, spec]) => {
        if (spec.required && !(key in given)) throw new Error(`job ${name}: input ${key} is required`);
        return [key, given[key] ?? spec.default ?? (spec.type === "boolean" ? false : "")];
      }),
    );
    const secrets = this.secretsFor(name, job, doc, contexts);
    const before = this.jobs.length;
    // A reusable workflow's jobs: github is still the caller's; job.workflow_* name the called file.
    const called: Contexts = {
      github: contexts.github as Value,
      inputs,
      secrets,
      job: {
        workflow_repository: (contexts.github as { repository: string }).repository,
        workflow_sha: this.options.sha,
        workflow_ref: `${(contexts.github as { repository: string }).repository}/${job.uses.slice(2)}@refs/heads/main`,
        workflow_file_path: job.uses.slice(2),
      },
    };
    await this.jobsOf(doc.jobs, called, `${name}/`);
    return this.jobs.slice(before);
  }

  /**
   * The secrets a called workflow sees: all of the caller's with `secrets: inherit`, else those the
   * caller maps, each of which the called workflow must declare (GitHub refuses the call otherwise).
   */
  private secretsFor(name: string, job: Yaml, doc: Yaml, contexts: Contexts): Record<string, Value> {
    if (job.secrets === "inherit") return this.options.secrets;
    const declared: Record<string, Yaml> = doc.on.workflow_call.secrets ?? {};
    const given = (job.secrets ?? {}) as Record<string, unknown>;
    const secrets: Record<string, Value> = {};
    for (const [key, value] of Object.entries(given)) {
      if (!(key in declared)) throw new Error(`job ${name}: ${job.uses} declares no secret ${key}`);
      secrets[key] = interpolate(value, contexts);
    }
    return secrets;
  }

  private async job(name: string, job: Yaml, contexts: Contexts): Promise<JobResult> {
    const environment =
      job.environment === undefined ? undefined : asText(interpolate(job.environment, contexts));
    if (environment !== undefined) {
      const summaries = this.jobs.map((j) => j.summary).filter(Boolean);
      if (!(await this.options.approve({ environment, job: name, summaries })))
        return this.record({ job: name, result: "failure" });
    }
    const runner = await tempDir("egp-runner-");
    const workspace = join(runner, "work");
    const files = { output: join(runner, "output"), summary: join(runner, "summary") };
    await mkdir(join(runner, "home"));
    await mkdir(join(runner, "temp"));
    await writeFile(files.summary, "");
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "",
      HOME: join(runner, "home"),
      RUNNER_TEMP: join(runner, "temp"),
      GITHUB_WORKSPACE: workspace,
      GITHUB_STEP_SUMMARY: files.summary,
      GIT_CONFIG_NOSYSTEM: "1",
      ...this.options.env,
    };
    const steps: Record<string, { outputs: Record<string, string> }> = {};
    const egpCheckouts: JobResult["egpCheckouts"] = [];
    let failed = false;
    for (const step of job.steps as Yaml[]) {
      const status = { failed };
      const here: Contexts = { ...contexts, steps, job: { ...(contexts.job as object), status: "success" } };
      if (!isTruthy(step.if === undefined ? !failed : interpolate(step.if, here, status))) continue;
      const given = Object.fromEntries(
        Object.entries((step.with ?? {}) as Record<string, unknown>).map(([k, v]) => [
          k,
          interpolate(v, here),
        ]),
      );
      const stepEnv = stringsOf(
        Object.fromEntries(
          Object.entries((step.env ?? {}) as Record<string, unknown>).map(([k, v]) => [
            k,
            interpolate(v, here),
          ]),
        ),
      );
      await writeFile(files.output, "");
      const ok = await this.step(name, step, given, {
        workspace,
        env: { ...env, ...stepEnv, GITHUB_OUTPUT: files.output },
        egpCheckouts,
      });
      if (step.id) steps[step.id] = { outputs: parseOutputs(await readFile(files.output, "utf8")) };
      if (!ok) failed = true;
    }
    const summary = await readFile(files.summary, "utf8");
    const outputs = failed
      ? {}
      : stringsOf(
          Object.fromEntries(
            Object.entries((job.outputs ?? {}) as Record<string, unknown>).map(([k, v]) => [
              k,
              interpolate(v, { ...contexts, steps }),
            ]),
          ),
        );
    return this.record({ job: name, result: failed ? "failure" : "success", outputs, summary, egpCheckouts });
  }

  private async step(
    job: string,
    step: Yaml,
    given: Record<string, Value>,
    at: { workspace: string; env: Record<string, string>; egpCheckouts: JobResult["egpCheckouts"] },
  ): Promise<boolean> {
    const uses = String(step.uses ?? "");
    const action = uses.split("@")[0];
    if (action === "actions/checkout") return this.checkout(given, at);
    if (action === "actions/setup-node") return true;
    if (action === "actions/upload-artifact") return this.upload(given, at.workspace);
    if (action === "actions/download-artifact") return this.download(given, at.workspace);
    if (uses === EGP_ACTION) return this.egpAction(job, given, at);
    if (typeof step.run === "string") return this.runStep(step.run, at);
    throw new Error(`job ${job}: the runner does not know the step ${JSON.stringify(step.name ?? uses)}`);
  }

  private async checkout(
    given: Record<string, Value>,
    at: { workspace: string; egpCheckouts: JobResult["egpCheckouts"] },
  ): Promise<boolean> {
    if (given.repository !== undefined) {
      // egp itself: this checkout, whatever ref is asked for; the ref is recorded for the test.
      at.egpCheckouts.push({ repository: asText(given.repository), ref: asText(given.ref ?? null) });
      if (given.path !== ".egp-tool") throw new Error(`egp is checked out into ${given.path}, not .egp-tool`);
      await symlink(ROOT, join(at.workspace, ".egp-tool"));
      return true;
    }
    if (given.path !== undefined || given.ref !== undefined)
      throw new Error("checkout: path and ref are not known here");
    const env = { PATH: process.env.PATH ?? "", GIT_CONFIG_NOSYSTEM: "1", HOME: dirname(at.workspace) };
    const cloned = await run("git", ["clone", "--quiet", this.options.origin, at.workspace], {
      cwd: dirname(at.workspace),
      env,
    });
    if (cloned.code !== 0) throw new Error(`git clone: ${cloned.stderr}`);
    const checked = await run("git", ["checkout", "--quiet", "--detach", this.options.sha], {
      cwd: at.workspace,
      env,
    });
    if (checked.code !== 0) throw new Error(`git checkout: ${checked.stderr}`);
    return true;
  }

  private async upload(given: Record<string, Value>, workspace: string): Promise<boolean> {
    const path = join(workspace, asText(given.path ?? null));
    const dir = await tempDir("egp-artifact-");
    const name = asText(given.name ?? null);
    const copied = await cp(path, join(dir, path.split("/").pop() as string)).then(
      () => true,
      () => false,
    );
    if (!copied && asText(given["if-no-files-found"] ?? "warn") === "error") return false;
    this.artifacts.set(name, dir);
    return true;
  }

  private async download(given: Record<string, Value>, workspace: string): Promise<boolean> {
    const from = this.artifacts.get(asText(given.name ?? null));
    if (!from) return false;
    await cp(from, join(workspace, asText(given.path ?? ".")), { recursive: true });
    return true;
  }

  /** The composite action: its `egp` step, with the env its action.yml evaluates from the inputs. */
  private async egpAction(
    job: string,
    given: Record<string, Value>,
    at: { workspace: string; env: Record<string, string> },
  ): Promise<boolean> {
    const action = parse(await readFile(join(ROOT, ".github", "actions", "egp", "action.yml"), "utf8"));
    const inputs: Record<string, Value> = {};
    for (const [key, spec] of Object.entries(action.inputs as Record<string, Yaml>)) {
      if (spec.required && given[key] === undefined)
        throw new Error(`job ${job}: the egp action needs ${key}`);
      inputs[key] = given[key] ?? spec.default ?? "";
    }
    for (const key of Object.keys(given))
      if (!(key in inputs)) throw new Error(`job ${job}: the egp action has no input ${key}`);
    const step = (action.runs.steps as Yaml[]).find((s) => s.id === "egp");
    const env = stringsOf(
      Object.fromEntries(
        Object.entries(step.env as Record<string, unknown>).map(([k, v]) => [k, interpolate(v, { inputs })]),
      ),
    );
    const ran = await run(process.execPath, [join(ROOT, "scripts", "ci", "run-egp.ts")], {
      cwd: at.workspace,
      env: { ...at.env, ...env },
    });
    const outputs = parseOutputs(await readFile(at.env.GITHUB_OUTPUT as string, "utf8"));
    const read = (file: string | undefined) => (file ? readFile(file, "utf8") : Promise.resolve(""));
    this.egp.push({
      job,
      args: env.EGP_CI_ARGS as string,
      code: Number(outputs["exit-code"] ?? ran.code),
      stdout: await read(outputs["stdout-file"]),
      stderr: await read(outputs["stderr-file"]),
    });
    return ran.code === 0;
  }

  /** A `run:` step: `node .egp-tool/scripts/ci/NAME.ts …`, by bash as the runner runs it. */
  private async runStep(
    line: string,
    at: { workspace: string; env: Record<string, string> },
  ): Promise<boolean> {
    const script = /^node \.egp-tool\/scripts\/ci\/([\w-]+)\.ts\b/.exec(line)?.[1];
    if (!script) throw new Error(`the runner does not know the step \`${line}\``);
    const instead = this.options.github?.[script];
    if (instead) {
      await instead({ workspace: at.workspace, env: at.env });
      return true;
    }
    const ran = await run("bash", ["-e", "-c", line], { cwd: at.workspace, env: at.env });
    return ran.code === 0;
  }
}

/** Runs a workflow file of .github/workflows (or one at an absolute path) on `options.origin` at `options.sha`. */
export async function runWorkflow(
  file: string,
  options: RunnerOptions,
  inputs: Record<string, Value> = {},
): Promise<RunResult> {
  const runner = new Runner(options);
  await runner.workflow(isAbsolute(file) ? file : join(".github", "workflows", file), inputs);
  return {
    jobs: runner.jobs,
    egp: runner.egp,
    artifacts: runner.artifacts,
    job(name) {
      const found = runner.jobs.find((j) => j.job === name);
      if (!found) throw new Error(`no job ${name} ran (${runner.jobs.map((j) => j.job).join(", ")})`);
      return found;
    },
  };
}

import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ROOT } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";
import type { GitHubStandIn } from "./github-stand-in.ts";

/*
 * Runs a scripts/ci entry script as a workflow step runs it: `node scripts/ci/<name>.ts`, with the
 * runner's files ($GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY) in a temp folder, read back afterwards.
 */

export interface StepRun {
  code: number;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
  /** Everything the step left anywhere: streams, outputs and summary, for secret greps. */
  all: string;
}

export interface StepOptions {
  args?: readonly string[];
  env?: Record<string, string>;
  cwd?: string;
}

/** Parses $GITHUB_OUTPUT: `name=value` lines and `name<<DELIM` heredocs. */
export function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc?.[1] && heredoc[2]) {
      const end = lines.indexOf(heredoc[2], i + 1);
      outputs[heredoc[1]] = lines.slice(i + 1, end).join("\n");
      i = end;
      continue;
    }
    const eq = line.indexOf("=");
    if (eq > 0) outputs[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return outputs;
}

export async function runStep(script: string, options: StepOptions = {}): Promise<StepRun> {
  const runner = await testdir({ output: "", summary: "" });
  const outputFile = join(runner, "output");
  const summaryFile = join(runner, "summary");
  const env = {
    PATH: process.env.PATH ?? "",
    RUNNER_TEMP: runner,
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    ...options.env,
  };
  const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>(
    (resolve) => {
      execFile(
        process.execPath,
        [join(ROOT, "scripts", "ci", `${script}.ts`), ...(options.args ?? [])],
        { cwd: options.cwd ?? ROOT, env, maxBuffer: 64 * 1024 * 1024 },
        (error, out, err) => {
          resolve({
            code: error ? (typeof error.code === "number" ? error.code : 1) : 0,
            stdout: out,
            stderr: err,
          });
        },
      );
    },
  );
  const outputText = await readFile(outputFile, "utf8");
  const summary = await readFile(summaryFile, "utf8");
  return {
    code,
    stdout,
    stderr,
    outputs: parseOutputs(outputText),
    summary,
    all: [stdout, stderr, outputText, summary].join("\n"),
  };
}

/** The variables a step talking to GitHub gets, pointed at the stand-in; `pr` writes a pull_request event. */
export async function githubEnv(standIn: GitHubStandIn, pr?: number): Promise<Record<string, string>> {
  const env: Record<string, string> = {
    GITHUB_API_URL: standIn.url,
    GITHUB_TOKEN: standIn.token,
    GITHUB_REPOSITORY: standIn.repository,
    GITHUB_SERVER_URL: "https://github.example",
    GITHUB_RUN_ID: "4242",
  };
  if (pr !== undefined) {
    const event = { action: "synchronize", pull_request: { number: pr } };
    const dir = await testdir({ "event.json": JSON.stringify(event) });
    env.GITHUB_EVENT_PATH = join(dir, "event.json");
  }
  return env;
}

/** Runs egp through the composite action's script, in `repo`. */
export function runEgpStep(
  repo: string,
  args: string,
  options: { allowed?: string; secrets?: Record<string, string>; env?: Record<string, string> } = {},
): Promise<StepRun> {
  return runStep("run-egp", {
    env: {
      EGP_CI_ARGS: args,
      EGP_CI_WORKING_DIRECTORY: repo,
      EGP_CI_ALLOWED_EXIT_CODES: options.allowed ?? "0,2",
      ...(options.secrets ? { EGP_CI_SECRETS: JSON.stringify(options.secrets) } : {}),
      ...options.env,
    },
  });
}

/** The flags that hand an egp step's result to the next script. */
export function resultFlags(env: string, step: StepRun): string[] {
  return [
    "--env",
    env,
    "--exit-code",
    step.outputs["exit-code"] ?? "",
    "--stdout",
    step.outputs["stdout-file"] ?? "",
    "--stderr",
    step.outputs["stderr-file"] ?? "",
  ];
}

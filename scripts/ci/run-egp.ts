import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Writable } from "node:stream";
import { annotation, appendSummary, setOutputs } from "./actions.ts";
import { splitArgs } from "./args.ts";
import { runMain } from "./context.ts";
import { maskCommands, secretsForEgp } from "./secrets.ts";

/*
 * The composite action's one step: runs egp from this checkout with the given arguments, shows its
 * output in the log as it comes, keeps stdout and stderr in files for the next steps, and exposes
 * the exit code as the `exit-code` output. Exit codes not in the allowed list fail the step with
 * that same code: a wrapper must never turn a failure into a success (LESSONS 11).
 *
 *   EGP_CI_ARGS                 egp's arguments, split like shell words (no expansion)
 *   EGP_CI_WORKING_DIRECTORY    the egp repository (environments/, manifests/); default "."
 *   EGP_CI_ALLOWED_EXIT_CODES   comma-separated codes that don't fail the step; default "0"
 *   EGP_CI_SUMMARY              none, markdown or text: append stdout to the job summary
 *   EGP_CI_SECRETS              ${{ toJSON(secrets) }}; its EGP_* entries become egp's variables
 *                               (and EGP_SECRETS's entries, masked in the log: secrets.ts)
 */

const EGP_BIN = join(import.meta.dirname, "..", "..", "bin", "egp.js");

export type SummaryMode = "none" | "markdown" | "text";

export interface RunEgpOptions {
  args: string[];
  cwd: string;
  secrets: Record<string, string>;
  outputDir: string;
}

export interface RunEgpResult {
  exitCode: number;
  stdoutFile: string;
  stderrFile: string;
}

export function parseAllowed(text: string | undefined): number[] {
  const codes = (text?.trim() ? text : "0").split(",").map((part) => part.trim());
  for (const code of codes) {
    if (!/^\d+$/.test(code)) throw new Error(`allowed-exit-codes: "${code}" is not an exit code`);
  }
  return codes.map(Number);
}

export function parseSummary(text: string | undefined): SummaryMode {
  const mode = text?.trim() || "none";
  if (mode === "none" || mode === "markdown" || mode === "text") return mode;
  throw new Error(`summary: "${mode}" is not none, markdown or text`);
}

/** The variables egp sees: the step's own, minus what only the glue needs, plus the EGP_* secrets. */
function childEnv(secrets: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.EGP_CI_SECRETS;
  delete env.GITHUB_TOKEN;
  return { ...env, ...secrets };
}

function tee(target: Writable, file: Writable) {
  return (chunk: Buffer) => {
    target.write(chunk);
    file.write(chunk);
  };
}

function finish(stream: Writable): Promise<void> {
  return new Promise((done) => stream.end(done));
}

export async function runEgp(options: RunEgpOptions): Promise<RunEgpResult> {
  mkdirSync(options.outputDir, { recursive: true });
  const dir = mkdtempSync(join(options.outputDir, "egp-"));
  const stdoutFile = join(dir, "stdout");
  const stderrFile = join(dir, "stderr");
  const out = createWriteStream(stdoutFile);
  const err = createWriteStream(stderrFile);
  const child = spawn(process.execPath, [EGP_BIN, ...options.args], {
    cwd: options.cwd,
    env: childEnv(options.secrets),
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.on("data", tee(process.stdout, out));
  child.stderr.on("data", tee(process.stderr, err));
  const exitCode = await new Promise<number>((done) => {
    child.on("error", (error) => {
      err.write(`egp could not be started: ${error.message}\n`);
      done(1);
    });
    // Killed by a signal: no exit code, and certainly not a success.
    child.on("close", (code) => done(code ?? 1));
  });
  await Promise.all([finish(out), finish(err)]);
  return { exitCode, stdoutFile, stderrFile };
}

function summarize(mode: SummaryMode, stdoutFile: string): void {
  if (mode === "none") return;
  const text = readFileSync(stdoutFile, "utf8");
  if (!text.trim()) return;
  appendSummary(mode === "markdown" ? text : ["```text", text.replace(/\n+$/, ""), "```"].join("\n"));
}

export async function main(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const args = splitArgs(env.EGP_CI_ARGS ?? "");
  if (args.length === 0) throw new Error("EGP_CI_ARGS is empty: say which egp command to run");
  const allowed = parseAllowed(env.EGP_CI_ALLOWED_EXIT_CODES);
  const summary = parseSummary(env.EGP_CI_SUMMARY);
  const secrets = secretsForEgp(env.EGP_CI_SECRETS);
  process.stdout.write(maskCommands(env.EGP_CI_SECRETS));
  const result = await runEgp({
    args,
    cwd: resolve(env.EGP_CI_WORKING_DIRECTORY || "."),
    secrets,
    outputDir: env.RUNNER_TEMP || tmpdir(),
  });
  // The output is written before deciding, so that later steps can read it even when this one fails.
  setOutputs({
    "exit-code": String(result.exitCode),
    "stdout-file": result.stdoutFile,
    "stderr-file": result.stderrFile,
  });
  summarize(summary, result.stdoutFile);
  const command = `egp ${args[0]}`;
  if (allowed.includes(result.exitCode)) {
    process.stdout.write(`${command} exited with code ${result.exitCode}\n`);
    return 0;
  }
  process.stdout.write(
    annotation("error", `${command} exited with code ${result.exitCode} (allowed: ${allowed.join(", ")})`),
  );
  return result.exitCode === 0 ? 1 : result.exitCode;
}

if (import.meta.main) runMain(main);

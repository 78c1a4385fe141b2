import { existsSync, readFileSync } from "node:fs";
import { annotation } from "./actions.ts";
import type { EgpRun } from "./comment-body.ts";
import { createGitHub, DEFAULT_API_URL, type GitHub } from "./github.ts";
import { parseRepo, type Repo } from "./repo.ts";

/* What the entry scripts share: reading an egp run's files, and GitHub from the runner's variables. */

type Env = Record<string, string | undefined>;

export function parseExitCode(text: string | undefined): number {
  if (text === undefined || !/^\d+$/.test(text.trim())) {
    throw new Error(`--exit-code "${text ?? ""}" is not an exit code (did the egp step run?)`);
  }
  return Number(text.trim());
}

function readIfAny(file: string | undefined): string {
  return file && existsSync(file) ? readFileSync(file, "utf8") : "";
}

export function readRun(flags: {
  env?: string;
  "exit-code"?: string;
  stdout?: string;
  stderr?: string;
}): EgpRun {
  if (!flags.env) throw new Error("--env is required");
  return {
    environment: flags.env,
    exitCode: parseExitCode(flags["exit-code"]),
    stdout: readIfAny(flags.stdout),
    stderr: readIfAny(flags.stderr),
  };
}

export function repoFrom(flag: string | undefined, env: Env = process.env): Repo {
  const slug = flag ?? env.GITHUB_REPOSITORY;
  if (!slug) throw new Error("no repository: pass --repo owner/name or set GITHUB_REPOSITORY");
  return parseRepo(slug);
}

export function githubFrom(env: Env = process.env): GitHub {
  if (!env.GITHUB_TOKEN)
    throw new Error("GITHUB_TOKEN is not set: give the step github.token as GITHUB_TOKEN");
  return createGitHub({ apiUrl: env.GITHUB_API_URL || DEFAULT_API_URL, token: env.GITHUB_TOKEN });
}

/** Runs an entry script's main: its result is the exit code; a thrown error is one annotated line. */
export function runMain(main: () => Promise<number>): void {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: Error) => {
      process.stdout.write(annotation("error", error.message));
      process.exitCode = 1;
    },
  );
}

import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { readFreezeExceptions } from "../../manifest/freeze-exception.ts";
import {
  type LoadResult,
  loadProject,
  loadRepository,
  ManifestError,
  type ManifestIssue,
} from "../../manifest/index.ts";
import { checkStoreSpec } from "../../store/open-store.ts";
import { ExitError } from "../errors.ts";
import { issueLine } from "../issue-line.ts";

interface ValidateFlags {
  dir: string;
  json?: boolean;
  env?: string;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

function summary(result: LoadResult): string {
  const { documents, files, environments } = result.stats;
  return `${plural(documents, "document")} in ${plural(files, "file")}, ${plural(environments, "environment")}`;
}

function repositoryDir(dir: string): string {
  const path = resolve(dir);
  if (!existsSync(path) || !statSync(path).isDirectory())
    throw new ExitError("EGP_USAGE", `--dir: not a directory: ${dir}`);
  return path;
}

/** The issues of egp.yaml (the release store's address) and of the freeze exceptions; none when right. */
async function projectIssues(dir: string): Promise<ManifestIssue[]> {
  return [
    ...(await issuesOf(() => loadProject(dir, { checkStore: checkStoreSpec }))),
    ...(await issuesOf(() => readFreezeExceptions(dir))),
  ];
}

async function issuesOf(read: () => Promise<unknown>): Promise<ManifestIssue[]> {
  try {
    await read();
    return [];
  } catch (error) {
    if (error instanceof ManifestError) return [...error.issues];
    throw error;
  }
}

/** The repository's result with egp.yaml's issues first. */
function withProject(result: LoadResult, issues: ManifestIssue[]): LoadResult {
  if (issues.length === 0) return result;
  const errors = [...issues, ...(result.ok ? [] : result.errors)];
  return { ok: false, errors, warnings: result.warnings, stats: result.stats };
}

function printJson(result: LoadResult): void {
  const body = result.ok
    ? { ok: true, ...result.stats, warnings: result.warnings }
    : { ok: false, ...result.stats, errors: result.errors, warnings: result.warnings };
  process.stdout.write(`${JSON.stringify(body)}\n`);
}

function printText(result: LoadResult): void {
  const lines = result.ok ? result.warnings : [...result.errors, ...result.warnings];
  for (const issue of lines) process.stderr.write(`${issueLine(issue)}\n`);
  if (result.ok) process.stdout.write(`ok: ${summary(result)}\n`);
}

export function registerValidateCommand(program: Command): void {
  program
    .command("validate")
    .description("parse and validate the environment files and manifests, offline (exit 0 valid, 1 invalid)")
    .option("--env <name>", "validate only what applies to this environment, its variables set too")
    .action(async (_flags: unknown, command: Command) => {
      const flags = command.optsWithGlobals<ValidateFlags>();
      const dir = repositoryDir(flags.dir);
      // Without --env nothing is connected to, so an unset ${VAR} is no error: a lint job on a pull
      // request needs no environment's secrets. With --env it checks that job's variables too.
      const unsetVariables = flags.env === undefined ? "keep" : "error";
      const unreadable = (error: NodeJS.ErrnoException) => {
        throw new ExitError("EGP_FILE_SYSTEM", `cannot read the repository: ${error.message}`, {
          cause: error,
        });
      };
      const [loaded, project] = await Promise.all([
        loadRepository(dir, { env: flags.env, unsetVariables }).catch(unreadable),
        projectIssues(dir).catch(unreadable),
      ]);
      const result = withProject(loaded, project);
      if (flags.json) printJson(result);
      else printText(result);
      if (!result.ok)
        throw new ExitError("EGP_MANIFEST_INVALID", `invalid: ${plural(result.errors.length, "error")}`);
    });
}

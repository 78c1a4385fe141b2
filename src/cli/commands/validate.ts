import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { validateProject } from "../../compose/validate.ts";
import type { LoadResult } from "../../manifest/index.ts";
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
      const result = await validateProject(dir, flags.env === undefined ? {} : { env: flags.env }).catch(
        (error: NodeJS.ErrnoException) => {
          throw new ExitError("EGP_FILE_SYSTEM", `cannot read the repository: ${error.message}`, {
            cause: error,
          });
        },
      );
      if (flags.json) printJson(result);
      else printText(result);
      if (!result.ok)
        throw new ExitError("EGP_MANIFEST_INVALID", `invalid: ${plural(result.errors.length, "error")}`);
    });
}

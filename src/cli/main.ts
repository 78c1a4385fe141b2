import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { printable, printableLines } from "../plan/index.ts";
import { survivePipeClosures } from "./broken-pipe.ts";
import { registerApplyCommand } from "./commands/apply.ts";
import { registerCompareCommand } from "./commands/compare.ts";
import { registerDriftCommand } from "./commands/drift.ts";
import { registerEmulatorCommand } from "./commands/emulator.ts";
import { registerExportCommand } from "./commands/export.ts";
import { registerPlanCommand } from "./commands/plan.ts";
import { registerReleasesCommand } from "./commands/releases.ts";
import { registerRollbackCommand } from "./commands/rollback.ts";
import { registerSchemaCommand } from "./commands/schema.ts";
import { registerShowCommand } from "./commands/show.ts";
import { registerValidateCommand } from "./commands/validate.ts";
import { describeUserError } from "./user-errors.ts";

/** The installed package's version: package.json sits two folders up from src/cli and from dist/cli. */
function packageVersion(): string {
  const text = readFileSync(new URL("../../package.json", import.meta.url), "utf8");
  return (JSON.parse(text) as { version: string }).version;
}

/** commander's `error: required option '--env <name>' not specified` as `egp: …`, on one line. */
export function usageError(text: string): string {
  const line = text
    .trim()
    .replace(/^error:\s*/, "")
    .replace(/\s*\n\s*/g, " ");
  return `egp: ${printable(line)}\n`;
}

export function buildProgram(): Command {
  const program = new Command("egp")
    .description("GitOps for the Enterprise Governance Platform")
    .version(packageVersion(), "-V, --version", "print egp's version")
    .option("--dir <path>", "repository root", process.cwd())
    .option("--log-level <level>", "fatal, error, warn, info, debug or trace", "warn")
    .option("--json", "JSON Lines on stdout, nothing else there; people's text goes to stderr")
    .option("--no-color", "no colours (also NO_COLOR=1; FORCE_COLOR=1 colours off a terminal)")
    .exitOverride()
    .showHelpAfterError(false)
    // Usage errors read as egp's other errors: one `egp: …` line.
    .configureOutput({ outputError: (text, write) => write(usageError(text)) });
  registerEmulatorCommand(program);
  registerValidateCommand(program);
  registerSchemaCommand(program);
  registerPlanCommand(program);
  registerDriftCommand(program);
  registerShowCommand(program);
  registerApplyCommand(program);
  registerRollbackCommand(program);
  registerReleasesCommand(program);
  registerExportCommand(program);
  registerCompareCommand(program);
  return program;
}

/** The one place that maps failures to exit codes. */
export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 1;
    const known = describeUserError(error);
    if (known) {
      for (const line of known.lines) process.stderr.write(`egp: ${line}\n`);
      return known.exitCode;
    }
    process.stderr.write(
      `egp: internal error; please report it with the stack below.\n${printableLines(String((error as Error)?.stack ?? error))}\n`,
    );
    return 1;
  }
}

survivePipeClosures();
const code = await main(process.argv);
if (code !== 0) process.exitCode = code;

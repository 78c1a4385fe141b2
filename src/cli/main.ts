import { Command, CommanderError } from "commander";
import { registerEmulatorCommand } from "./commands/emulator.ts";
import { registerSchemaCommand } from "./commands/schema.ts";
import { registerValidateCommand } from "./commands/validate.ts";
import { ExitError } from "./errors.ts";

export function buildProgram(): Command {
  const program = new Command("egp")
    .description("GitOps for the Enterprise Governance Platform")
    .option("--dir <path>", "repository root", process.cwd())
    .option("--log-level <level>", "fatal, error, warn, info, debug or trace", "warn")
    .option("--json", "machine-readable output")
    .exitOverride()
    .showHelpAfterError(false);
  registerEmulatorCommand(program);
  registerValidateCommand(program);
  registerSchemaCommand(program);
  return program;
}

/** The one place that maps failures to exit codes. */
export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 1;
    if (error instanceof ExitError) {
      process.stderr.write(`egp: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(
      `egp: internal error; please report it with the stack below.\n${(error as Error)?.stack ?? error}\n`,
    );
    return 1;
  }
}

const code = await main(process.argv);
if (code !== 0) process.exitCode = code;

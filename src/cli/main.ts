import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { printable } from "../plan/render/printable.ts";
import { survivePipeClosures } from "./broken-pipe.ts";
import { COMMANDS, commandsFor, type Register } from "./command-list.ts";

/** The installed package's version: package.json sits two folders up from src/cli and from dist/cli. */
function packageVersion(): string {
  const text = readFileSync(new URL("../../package.json", import.meta.url), "utf8");
  return (JSON.parse(text) as { version: string }).version;
}

/** commander's `error: required option '--env <name>' not specified` as `egp: EGP_USAGE …`, on one line. */
export function usageError(text: string): string {
  const line = text
    .trim()
    .replace(/^error:\s*/, "")
    .replace(/\s*\n\s*/g, " ");
  return `egp: EGP_USAGE ${printable(line)}\n`;
}

/** The program with the commands `args` (the words after `egp`) need; all of them by default. */
export async function buildProgram(args?: readonly string[]): Promise<Command> {
  const program = new Command("egp")
    .description("GitOps for the Enterprise Governance Platform")
    .version(packageVersion(), "-V, --version", "print egp's version")
    .option("--dir <path>", "repository root", process.cwd())
    .option("--log-level <level>", "fatal, error, warn, info, debug or trace", "warn")
    .option("--json", "JSON Lines on stdout, nothing else there; people's text goes to stderr")
    .option("--no-color", "no colours (also NO_COLOR=1; FORCE_COLOR=1 colours off a terminal)")
    .exitOverride()
    .showHelpAfterError(false)
    // Usage errors read as egp's other errors: one `egp: CODE …` line.
    .configureOutput({ outputError: (text, write) => write(usageError(text)) });
  const names = args ? commandsFor(args) : Object.keys(COMMANDS);
  const registers = await Promise.all(names.map((name) => (COMMANDS[name] as () => Promise<Register>)()));
  for (const register of registers) register(program);
  return program;
}

/** The one place that maps failures to exit codes. */
export async function main(argv: string[]): Promise<number> {
  try {
    await (await buildProgram(argv.slice(2))).parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return 0;
      // Loaded only for a usage error: `--help` and `--version` load nothing more.
      const { ERROR_CODES } = await import("../errors/index.ts");
      return ERROR_CODES.EGP_USAGE.exitCode;
    }
    const [{ userErrorOutput }, { printableLines }] = await Promise.all([
      import("./user-errors.ts"),
      import("../plan/index.ts"),
    ]);
    // One of egp's failures: its lines, each `egp: CODE message`; anything else is a bug.
    const known = userErrorOutput(error);
    if (known) {
      process.stderr.write(known.text);
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

import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Command } from "commander";
import { readPlanFile } from "../../plan/index.ts";
import { type Format, formatOption, printPlan } from "./plan.ts";

interface ShowFlags {
  json?: boolean;
  color?: boolean;
  format: Format;
}

/*
 * A saved plan (`plan --out`, the CI artifact) for a person, as `terraform show plan.tfplan` does:
 * offline, no environment or credentials, the same renderers as `plan`. A file that is not a plan
 * fails as `apply FILE` fails on it: one line naming the file. The
 * path is relative to the working directory, as for `plan --out` and `apply FILE`.
 */
export function registerShowCommand(program: Command): void {
  program
    .command("show")
    .description("print a saved plan file (from `plan --out`) as text, markdown or json, offline")
    .argument("<file>", "the plan file")
    .addOption(formatOption())
    .action(async (file: string, _options: unknown, command: Command) => {
      const flags = command.optsWithGlobals<ShowFlags>();
      const plan = readPlanFile(await readFile(resolve(file), "utf8"), file);
      printPlan(plan, flags);
    });
}

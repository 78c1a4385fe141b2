import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { type Command, Option } from "commander";
import { type EnvironmentConfig, fieldWordsOf } from "../../manifest/index.ts";
import {
  DEFAULT_MARKDOWN_LIMIT,
  type Plan,
  printable,
  type RenderOptions,
  renderJson,
  renderMarkdown,
  renderText,
  writePlanFile,
} from "../../plan/index.ts";
import { ExitError } from "../errors.ts";
import { issueLine } from "../issue-line.ts";
import { pendingNotice } from "../pending.ts";
import { planWith } from "../plan-environment.ts";
import { withEnvironments } from "../run.ts";
import { type SelectionFlags, selectionOf, withSelection } from "../selection.ts";
import { paintPlan, stylesFor } from "../style.ts";

export type Format = "text" | "markdown" | "json";

/** For people, fields show in the manifests' words; the JSON keeps the wire's (docs/plan-format.md). */
export function render(plan: Plan, format: Format, view: RenderOptions["view"] = "plan"): string {
  const options: RenderOptions = { view, words: fieldWordsOf };
  if (format === "markdown") return renderMarkdown(plan, DEFAULT_MARKDOWN_LIMIT, options);
  if (format === "json") return renderJson(plan);
  return renderText(plan, options);
}

/**
 * Prints a plan: with --json one line of JSON (a JSON Lines stream, as every command's --json
 * output is; `--format json` is the same plan indented), else in the chosen format, the text
 * coloured on a terminal (style.ts).
 */
export function printPlan(
  plan: Plan,
  flags: { json?: boolean; color?: boolean; format: Format },
  view: RenderOptions["view"] = "plan",
): void {
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(plan)}\n`);
    return;
  }
  const text = render(plan, flags.format, view);
  process.stdout.write(flags.format === "text" ? paintPlan(text, stylesFor(flags).out) : text);
}

export const formatOption = () =>
  new Option("--format <format>", "text, markdown or json")
    .choices(["text", "markdown", "json"])
    .default("text");

interface PlanFlags extends SelectionFlags {
  env: string;
  out?: string;
  format: Format;
  detailedExitcode?: boolean;
  allowDelete?: boolean;
  enforceRoles?: boolean;
}

/**
 * The freeze in force, which the plan carries at its top, and the notice for this actor; the freeze
 * code loaded only for an environment that has freeze windows.
 */
async function freezeOfPlan(check: { dir: string; environment: EnvironmentConfig; now: Date }) {
  if (!check.environment.freeze?.length) return {};
  const { actorOf, freezeNotice, freezeOf } = await import("../../release/freeze-gate.ts");
  const freeze = freezeOf(check.environment, check.now);
  return { freeze, notice: await freezeNotice({ ...check, actor: actorOf() }) };
}

export function registerPlanCommand(program: Command): void {
  const command = program
    .command("plan")
    .description("read the live state of an environment and print what apply would change")
    .requiredOption("--env <name>", "environment (a file in environments/)")
    .option("--out <file>", "also save the plan, for `egp apply <file>`")
    .addOption(formatOption())
    .option("--detailed-exitcode", "exit 0 when nothing changes, 2 when something does, 1 on error")
    .option("--allow-delete", "prune what the manifests do not name, whatever the prune policy")
    .option("--enforce-roles", "send roles of every managed user where the instance can't read them back");
  withSelection(command).action(async (_options: unknown, command: Command) => {
    await withEnvironments<PlanFlags>(command, async ({ flags, dir, logger, connections }) => {
      const planned = await planWith({ dir, connections, logger, closeAfterRead: true }, flags.env, {
        allowDelete: flags.allowDelete,
        enforceRoles: flags.enforceRoles,
        ...selectionOf(flags),
      });
      for (const warning of planned.warnings) process.stderr.write(`${issueLine(warning)}\n`);
      const { freeze, notice } = await freezeOfPlan({
        dir,
        environment: planned.desired.environment,
        now: new Date(),
      });
      // A reviewer reads the plan, not the job's log: the freeze is in the plan (and its file) too.
      const plan = freeze ? { ...planned.plan, freeze } : planned.plan;
      if (notice) process.stderr.write(`${printable(notice)}\n`);
      const pending = pendingNotice(dir, flags.env);
      if (pending) process.stderr.write(`${pending}\n`);
      if (flags.out) {
        await writeFile(resolve(flags.out), writePlanFile(plan, { key: process.env.EGP_PLAN_KEY }), {
          mode: 0o600,
        });
        logger.info({ file: flags.out, plan: plan.id }, "plan saved");
      }
      printPlan(plan, flags);
      if (flags.detailedExitcode && plan.changes.length > 0) throw new ExitError("EGP_DIFFERENCES", "");
    });
  });
}

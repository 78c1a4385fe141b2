import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { type Command, Option } from "commander";
import { compareEnvironments } from "../../compose/compare.ts";
import {
  type Comparison,
  comparisonDiffers,
  renderComparisonHtml,
  renderComparisonJson,
  renderComparisonMarkdown,
  renderComparisonText,
} from "../../plan/index.ts";
import { ExitError } from "../errors.ts";
import { issueLine } from "../issue-line.ts";
import { clientsOf } from "../plan-environment.ts";
import { withEnvironments } from "../run.ts";

type CompareFormat = "text" | "markdown" | "json" | "html";

interface CompareFlags {
  from: string;
  to: string;
  applications?: string[];
  format: CompareFormat;
  out?: string;
  expand?: boolean;
}

const RENDER: Record<CompareFormat, (comparison: Comparison, flags: CompareFlags) => string> = {
  text: renderComparisonText,
  markdown: (comparison) => renderComparisonMarkdown(comparison),
  json: renderComparisonJson,
  html: (comparison, flags) => renderComparisonHtml(comparison, { expand: Boolean(flags.expand) }),
};

/**
 * Read-only: the applications and sub-forms of two environments, part by part (docs/promotion.md).
 * Exit 0 when they match, 2 when they differ, 1 on error.
 */
export function registerCompareCommand(program: Command): void {
  program
    .command("compare")
    .description("compare two environments' applications part by part (exit 0 same, 2 different, 1 error)")
    .requiredOption("--from <env>", "the reference environment (A)")
    .requiredOption("--to <env>", "the environment compared with it (B)")
    .option("--applications <names...>", "compare only these applications or sub-forms, by name")
    .addOption(
      new Option("--format <format>", "text, markdown, json or html")
        .choices(["text", "markdown", "json", "html"])
        .default("text"),
    )
    .option("--out <file>", "write the report to a file instead of stdout")
    .option("--expand", "html: every section open (the page has no script to open them all)")
    .action(async (_options: unknown, command: Command) => {
      await withEnvironments<CompareFlags>(command, async ({ flags, dir, connections }) => {
        const { comparison, unknown, issues } = await compareEnvironments({
          dir,
          from: flags.from,
          to: flags.to,
          open: clientsOf(connections),
          ...(flags.applications ? { applications: flags.applications } : {}),
        });
        for (const issue of issues) process.stderr.write(`${issueLine(issue)}\n`);
        if (unknown.length > 0) {
          throw new ExitError(
            "EGP_USAGE",
            `--applications: no application or sub-form named ${unknown.map((n) => JSON.stringify(n)).join(", ")} on ${flags.from} or ${flags.to}`,
          );
        }
        const format: CompareFormat = flags.json ? "json" : flags.format;
        const report = RENDER[format](comparison, flags);
        if (flags.out) {
          const path = resolve(flags.out);
          await writeFile(path, report).catch((error: NodeJS.ErrnoException) => {
            throw new ExitError(
              "EGP_FILE_SYSTEM",
              `--out: cannot write ${flags.out} (${error.code ?? error.message})`,
              {
                cause: error,
              },
            );
          });
          const { summary } = comparison;
          process.stdout.write(
            `wrote ${flags.out}: ${summary.mismatched} mismatched, ${summary.missingInTarget} missing in target, ${summary.missingInSource} missing in source, ${summary.matched} matched\n`,
          );
        } else process.stdout.write(report);
        if (comparisonDiffers(comparison)) throw new ExitError("EGP_DIFFERENCES", "");
      });
    });
}

import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { type Command, Option } from "commander";
import { type EnvironmentConfig, environmentOf, readRepository } from "../../manifest/index.ts";
import {
  type Comparison,
  compareInstances,
  comparisonDiffers,
  renderComparisonHtml,
  renderComparisonJson,
  renderComparisonMarkdown,
  renderComparisonText,
} from "../../plan/index.ts";
import { readForComparison } from "../../state/compare-read.ts";
import { ExitError } from "../errors.ts";
import { issueLine } from "../issue-line.ts";
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
        const repository = await readRepository(dir);
        // Only the two environment files matter: compare reads instances, not manifests.
        const bare = { ...repository, manifests: [] };
        const config = (name: string): EnvironmentConfig => {
          const { state, warnings } = environmentOf(bare, name);
          for (const warning of warnings) process.stderr.write(`${issueLine(warning)}\n`);
          return state.environment;
        };
        const [from, to] = [config(flags.from), config(flags.to)];
        const [a, b] = await Promise.all([connections.open(from), connections.open(to)]);
        const sides = await readForComparison(a.client, b.client, flags.applications);
        if (sides.unknown.length > 0) {
          throw new ExitError(
            "EGP_USAGE",
            `--applications: no application or sub-form named ${sides.unknown.map((n) => JSON.stringify(n)).join(", ")} on ${from.name} or ${to.name}`,
          );
        }
        const comparison = compareInstances({
          from: { environment: from.name, ...sides.from },
          to: { environment: to.name, ...sides.to },
          createdAt: new Date().toISOString(),
        });
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

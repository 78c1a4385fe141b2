import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { type Command, InvalidArgumentError, Option } from "commander";
import { environmentNames } from "../../manifest/index.ts";
import {
  printable,
  renderStatusHtml,
  renderStatusJson,
  renderStatusMarkdown,
  renderStatusText,
  type StatusReport,
  statusExitCode,
} from "../../plan/index.ts";
import { readStatus } from "../../release/status.ts";
import { driftSealOption } from "../drift-seal.ts";
import { ExitError, unknownEnvironment } from "../errors.ts";
import { issueLine } from "../issue-line.ts";
import { manifestCacheOf } from "../manifest-cache.ts";
import { clientsOf } from "../plan-environment.ts";
import { withEnvironments } from "../run.ts";
import { stateDirOf } from "../state-dir.ts";
import { oneLineOf } from "../user-errors.ts";

type StatusFormat = "text" | "markdown" | "json" | "html";

interface StatusFlags {
  env?: string[];
  format: StatusFormat;
  out?: string;
  html?: string;
  parallel: number;
}

const RENDER: Record<StatusFormat, (report: StatusReport) => string> = {
  text: renderStatusText,
  markdown: renderStatusMarkdown,
  json: renderStatusJson,
  html: renderStatusHtml,
};

function positive(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("expected a whole number, 1 or more");
  return n;
}

async function write(file: string, flag: string, text: string): Promise<void> {
  await writeFile(resolve(file), text).catch((error: NodeJS.ErrnoException) => {
    throw new ExitError("EGP_FILE_SYSTEM", `${flag}: cannot write ${file} (${error.code ?? error.message})`, {
      cause: error,
    });
  });
}

/**
 * Every environment of the repository (or those named), read in parallel: reachable, version, drift
 * per kind, last install, pending apply (docs/status.md). Exit 0 all match, 2 drift, 1 unreadable.
 */
export function registerStatusCommand(program: Command): void {
  program
    .command("status")
    .description(
      "every environment in pipeline order: reachable, version, drift, the release it wants and runs, pending apply (exit 0/2/1)",
    )
    .option("--env <names...>", "these environments only (default: every file in environments/)")
    .addOption(
      new Option("--format <format>", "text, markdown, json or html")
        .choices(["text", "markdown", "json", "html"])
        .default("text"),
    )
    .option("--out <file>", "write the report to a file instead of stdout")
    .option("--html <file>", "also write the report as a self-contained HTML page")
    .option("--parallel <n>", "environments read at once", positive, 10)
    .action(async (_options: unknown, command: Command) => {
      await withEnvironments<StatusFlags>(command, async ({ flags, dir, logger, connections }) => {
        const known = await environmentNames(dir);
        const unknown = (flags.env ?? []).filter((env) => !known.includes(env));
        if (unknown[0] !== undefined) throw unknownEnvironment(unknown[0], known);
        if ((flags.env ?? known).length === 0)
          throw new ExitError("EGP_MANIFEST_INVALID", "no environments: environments/*.yaml is empty");
        const warned = new Set<string>();
        const warn = (line: string) => {
          if (!warned.has(line)) process.stderr.write(`${line}\n`);
          warned.add(line);
        };
        const report = await readStatus({
          dir,
          open: clientsOf(connections),
          stateDir: stateDirOf(dir),
          ...(flags.env ? { environments: flags.env } : {}),
          parallel: flags.parallel,
          cache: manifestCacheOf(dir),
          logger,
          warn: (issue) => warn(issueLine(issue)),
          reasonOf: oneLineOf,
          ...driftSealOption(),
        });
        const { matching, drifted, unreadable } = report.summary;
        const counts = `${report.environments.length} environment(s): ${matching} matching, ${drifted} drifted, ${unreadable} unreachable`;
        if (flags.html) {
          await write(flags.html, "--html", renderStatusHtml(report));
          // On stderr: stdout holds the report in the chosen format (a job summary appends it).
          process.stderr.write(`wrote ${printable(flags.html)}\n`);
        }
        if (flags.json) process.stdout.write(`${JSON.stringify(report)}\n`);
        else if (flags.out) {
          await write(flags.out, "--out", RENDER[flags.format](report));
          process.stdout.write(`wrote ${printable(flags.out)}: ${counts}\n`);
        } else process.stdout.write(RENDER[flags.format](report));
        const code = statusExitCode(report);
        // The report said it all: drift exits 2, an environment that could not be read 1.
        if (code !== 0) throw new ExitError(code === 2 ? "EGP_DIFFERENCES" : "EGP_STATUS_INCOMPLETE", "");
      });
    });
}

import { join, relative, resolve } from "node:path";
import type { Command } from "commander";
import { printable } from "../../plan/index.ts";
import { writeFiles } from "../export-files.ts";
import { exportRecordsCommand, recordFlagsOf } from "../export-records.ts";
import { issueLine } from "../issue-line.ts";
import { clientsOf } from "../plan-environment.ts";
import { withEnvironments } from "../run.ts";
import { type SelectionFlags, selectionOf, withSelection } from "../selection.ts";

interface ExportFlags extends SelectionFlags {
  env: string;
  out: string;
  force?: boolean;
  includeLoginUser?: boolean;
  kind?: string;
  application?: string;
  level?: string;
  key?: string[];
  refKey?: string[];
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/**
 * Writes manifests from what an environment reports, scoped to it, such that a following plan shows
 * no changes (docs/manifests.md, "Export"); src/compose/export.ts makes them. Reads only.
 */
export function registerExportCommand(program: Command): void {
  const command = program
    .command("export")
    .description("write manifests (security parameters, users) from the live state of an environment")
    .requiredOption("--env <name>", "environment (a file in environments/)")
    .requiredOption("--out <dir>", "directory to write security-parameters.yaml and users.yaml into")
    .option("--force", "overwrite documents of the folder that differ from the instance")
    .option("--include-login-user", "also write the account egp logs in with (left out by default)")
    .option("--kind <kind>", "write one kind only: Record (with --application)")
    .option("--application <name>", "--kind Record: the application whose records to write")
    .option("--level <name>", "--kind Record: a level other than the application's first")
    .option(
      "--key <field>",
      "--kind Record: a key field (repeatable; the level's key field by default)",
      collect,
    )
    .option(
      "--ref-key <APPLICATION=FIELD>",
      "--kind Record: the key field of an application the records reference (repeatable)",
      collect,
    );
  withSelection(command).action(async (_options: unknown, command: Command) => {
    await withEnvironments<ExportFlags>(command, async ({ flags, dir, logger, connections }) => {
      if (recordFlagsOf(flags)) {
        await exportRecordsCommand(flags, dir, clientsOf(connections));
        logger.info({ env: flags.env, out: flags.out }, "exported");
        return;
      }
      // Loaded here: the YAML writer is needed by this command only.
      const { exportEnvironment } = await import("../../compose/export.ts");
      const out = resolve(flags.out);
      const { exported, files, warnings, issues } = await exportEnvironment({
        dir,
        env: flags.env,
        open: clientsOf(connections),
        out,
        ...selectionOf(flags),
        ...(flags.includeLoginUser ? { includeLoginUser: true } : {}),
        ...(flags.force ? { force: true } : {}),
      });
      for (const issue of issues) process.stderr.write(`${issueLine(issue)}\n`);
      const shown = relative(process.cwd(), out) || ".";
      await writeFiles(out, files);
      logger.info({ env: flags.env, out }, "exported");
      for (const warning of warnings) process.stderr.write(`warning: ${printable(warning)}\n`);
      // A merged file holds the other environments' documents too: say so, not only what was read.
      const inFile = (i: number) => files[i]?.documents.length ?? 0;
      const summary = exported.map((f, i) => ({
        file: join(shown, f.file),
        kind: f.kind,
        documents: f.count,
        inFile: inFile(i),
      }));
      if (flags.json) {
        process.stdout.write(`${JSON.stringify({ files: summary, warnings })}\n`);
        return;
      }
      exported.forEach((file, i) => {
        const merged = inFile(i) !== file.count ? ` (merged: ${inFile(i)} documents in the file)` : "";
        process.stdout.write(
          `wrote ${printable(join(shown, file.file))}: ${file.count} ${file.count === 1 ? file.noun.replace(/s$/, "") : file.noun}${merged}\n`,
        );
        for (const key of file.leftOut)
          process.stdout.write(
            `${printable(`  left out ${file.kind} ${key}: the account egp logs in with, so that no edit locks egp out (--include-login-user writes it)`)}\n`,
          );
      });
    });
  });
}

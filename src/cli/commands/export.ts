import { join, relative, resolve } from "node:path";
import type { Command } from "commander";
import { environmentOf, readRepository, selectManifests } from "../../manifest/index.ts";
import { keysToRead, parseTargets, printable, selects } from "../../plan/index.ts";
import { readLiveState, startEarlyReads } from "../../state/index.ts";
import { mergedFiles, refuseOverwrites, writeFiles } from "../export-files.ts";
import { issueLine } from "../issue-line.ts";
import { withEnvironments } from "../run.ts";
import { type SelectionFlags, withSelection } from "../selection.ts";

interface ExportFlags extends SelectionFlags {
  env: string;
  out: string;
  force?: boolean;
  includeLoginUser?: boolean;
}

/**
 * Writes manifests from what an environment reports, scoped to it, such that a following plan shows
 * no changes (docs/manifests.md, "Export"). Reads only: no package objects, no secrets.
 */
export function registerExportCommand(program: Command): void {
  const command = program
    .command("export")
    .description("write manifests (security parameters, users) from the live state of an environment")
    .requiredOption("--env <name>", "environment (a file in environments/)")
    .requiredOption("--out <dir>", "directory to write security-parameters.yaml and users.yaml into")
    .option("--force", "overwrite documents of the folder that differ from the instance")
    .option("--include-login-user", "also write the account egp logs in with (left out by default)");
  withSelection(command).action(async (_options: unknown, command: Command) => {
    await withEnvironments<ExportFlags>(command, async ({ flags, dir, logger, connections }) => {
      const repository = selectManifests(await readRepository(dir), flags.manifests);
      const { state: desired, warnings } = environmentOf(repository, flags.env);
      for (const warning of warnings) process.stderr.write(`${issueLine(warning)}\n`);
      const targets = parseTargets(flags.target);
      const target = await connections.open(desired.environment);
      // Objects named exactly are read by name; a kind no target names is not needed to write the
      // others (a parameter's users, say), so its narrowable read is skipped.
      const early = startEarlyReads(target.client, (kind) =>
        targets.length > 0 && !targets.some((t) => t.kind === kind) ? [] : keysToRead(targets, kind),
      );
      // Packages are promotions between environments, not state to export: skip their trees.
      const live = await readLiveState(target.client, { ...desired, packages: [] }, { scope: "all", early });
      // Loaded here: the YAML writer is needed by this command only.
      const { exportManifests, mergeExportedFile } = await import("../../export/index.ts");
      const exported = exportManifests({
        environment: desired.environment,
        live,
        ...(flags.includeLoginUser ? { includeLoginUser: true } : {}),
        ...(targets.length > 0
          ? { selects: (kind: string, key: string) => selects(targets, kind, key) }
          : {}),
      });
      const out = resolve(flags.out);
      const files = await mergedFiles(out, exported.files, (file, existing) => {
        const leftOut = new Set(file.leftOut.map((key) => key.toLowerCase()));
        return mergeExportedFile(
          file,
          existing,
          flags.env,
          (key) =>
            !leftOut.has(key.toLowerCase()) && (targets.length === 0 || selects(targets, file.kind, key)),
        );
      });
      const shown = relative(process.cwd(), out) || ".";
      if (!flags.force) refuseOverwrites(files, shown);
      await writeFiles(out, files);
      logger.info({ env: flags.env, out }, "exported");
      for (const warning of exported.warnings) process.stderr.write(`warning: ${printable(warning)}\n`);
      // A merged file holds the other environments' documents too: say so, not only what was read.
      const inFile = (i: number) => files[i]?.documents.length ?? 0;
      const summary = exported.files.map((f, i) => ({
        file: join(shown, f.file),
        kind: f.kind,
        documents: f.count,
        inFile: inFile(i),
      }));
      if (flags.json) {
        process.stdout.write(`${JSON.stringify({ files: summary, warnings: exported.warnings })}\n`);
        return;
      }
      exported.files.forEach((file, i) => {
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

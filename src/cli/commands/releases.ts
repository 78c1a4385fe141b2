import type { Command } from "commander";
import type { HistoryEntry } from "../../apply/index.ts";
import { installName, printable } from "../../plan/index.ts";
import { installHistory } from "../../release/history.ts";
import { distrust } from "../../store/index.ts";
import { type GlobalFlags, repositoryDir } from "../run.ts";

interface HistoryFlags extends GlobalFlags {
  env: string;
}

/** A record without its part fingerprints, which are for rollback's check, not for people. */
function summary({ record, trust }: HistoryEntry) {
  const { snapshot, ...rest } = record;
  return {
    ...rest,
    signed: trust.trusted ? trust.by : null,
    ...(trust.trusted ? {} : { untrusted: distrust(trust) }),
    snapshot: snapshot
      ? { digest: snapshot.digest, takenAt: snapshot.takenAt, objects: snapshot.objects.map((o) => o.name) }
      : null,
  };
}

function line({ record, trust }: HistoryEntry): string {
  const status = record.installedAt
    ? `installed ${record.installedAt}`
    : record.failedAt
      ? `install asked ${record.startedAt}, refused or failed ${record.failedAt}`
      : `install asked ${record.startedAt}, not seen done`;
  const snapshot = record.snapshot
    ? `snapshot of ${record.snapshot.objects.map((o) => o.name).join(", ")}`
    : "no snapshot";
  const created = record.created.length ? `; created ${record.created.map((o) => o.name).join(", ")}` : "";
  const last = record.rollbacks.at(-1);
  const rolledBack = last ? `; rolled back ${last.at}` : "";
  const what = record.release ? `, package ${JSON.stringify(record.package.name)}` : "";
  const untrusted = trust.trusted ? "" : `  [NOT TRUSTED: ${distrust(trust)}; rollback does not use it]`;
  return `${installName(record)}${what}, ${status}; ${snapshot}${created}${rolledBack}${untrusted}`;
}

/**
 * `egp history --env E` (alias `egp releases`): what was installed on an environment, newest
 * first, from the release store, so that any machine with the repository sees the same history.
 */
export function registerReleasesCommand(program: Command): void {
  program
    .command("history")
    .alias("releases")
    .description(
      "list the installs of an environment (what was installed when, and rolled back), newest first, from the release store; `egp release list` lists the releases",
    )
    .requiredOption("--env <name>", "environment (a file in environments/)")
    .action(async (_options: unknown, command: Command) => {
      const flags = command.optsWithGlobals<HistoryFlags>();
      const dir = repositoryDir(flags.dir);
      const { history, store } = await installHistory(dir, flags.env);
      if (flags.json) {
        for (const entry of history) process.stdout.write(`${JSON.stringify(summary(entry))}\n`);
        return;
      }
      if (history.length === 0) {
        process.stdout.write(`Nothing was installed on ${flags.env} (no history in the store ${store}).\n`);
        return;
      }
      for (const entry of history) process.stdout.write(`${printable(line(entry))}\n`);
    });
}

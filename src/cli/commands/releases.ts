import type { Command } from "commander";
import { listReleases, type ReleaseRecord, releasesDir } from "../../apply/index.ts";
import { environmentOf, readRepository } from "../../manifest/index.ts";
import { printable } from "../../plan/index.ts";
import { type GlobalFlags, repositoryDir } from "../run.ts";
import { stateDirOf } from "../state-dir.ts";

interface ReleasesFlags extends GlobalFlags {
  env: string;
}

/** A record without its part fingerprints, which are for rollback's check, not for people. */
function summary(record: ReleaseRecord) {
  const { snapshot, ...rest } = record;
  return {
    ...rest,
    snapshot: snapshot
      ? { digest: snapshot.digest, takenAt: snapshot.takenAt, objects: snapshot.objects.map((o) => o.name) }
      : null,
  };
}

function line(record: ReleaseRecord): string {
  const status = record.installedAt
    ? `installed ${record.installedAt}`
    : `install asked ${record.startedAt}, not seen done`;
  const snapshot = record.snapshot
    ? `snapshot of ${record.snapshot.objects.map((o) => o.name).join(", ")}`
    : "no snapshot";
  const created = record.created.length ? `; created ${record.created.map((o) => o.name).join(", ")}` : "";
  const last = record.rollbacks.at(-1);
  const rolledBack = last ? `; rolled back ${last.at}` : "";
  return `${record.id}  ${record.package.name} from ${record.sourceEnvironment}, ${status}; ${snapshot}${created}${rolledBack}`;
}

/** `egp releases --env E`: the promotions recorded for an environment, newest first; offline. */
export function registerReleasesCommand(program: Command): void {
  program
    .command("releases")
    .description("list the promotions (release records) of an environment, newest first, offline")
    .requiredOption("--env <name>", "environment (a file in environments/)")
    .action(async (_options: unknown, command: Command) => {
      const flags = command.optsWithGlobals<ReleasesFlags>();
      const dir = repositoryDir(flags.dir);
      // The environment must exist: a typo should not read as "no releases".
      environmentOf({ ...(await readRepository(dir)), manifests: [] }, flags.env);
      const releases = listReleases(stateDirOf(dir), flags.env);
      if (flags.json) {
        for (const record of releases) process.stdout.write(`${JSON.stringify(summary(record))}\n`);
        return;
      }
      if (releases.length === 0) {
        process.stdout.write(
          `No releases of ${flags.env} (none in ${releasesDir(stateDirOf(dir), flags.env)}).\n`,
        );
        return;
      }
      for (const record of releases) process.stdout.write(`${printable(line(record))}\n`);
    });
}

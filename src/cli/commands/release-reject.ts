import type { Command } from "commander";
import { RELEASE_NAME } from "../../manifest/index.ts";
import { printable } from "../../plan/index.ts";
import { rejectRelease } from "../../release/reject.ts";
import { ExitError } from "../errors.ts";
import { type GlobalFlags, repositoryDir } from "../run.ts";

interface RejectFlags extends GlobalFlags {
  reason: string;
}

/** `egp release reject NAME --reason TEXT`: a release never to be promoted again. */
export function registerReleaseReject(release: Command): void {
  release
    .command("reject")
    .description("mark a release as never to be promoted (plan and apply of an environment naming it exit 1)")
    .argument("<name>", "the release")
    .requiredOption("--reason <text>", "why, for the people whose plans it refuses")
    .action(async (name: string, _options: unknown, command: Command) => {
      const flags = command.optsWithGlobals<RejectFlags>();
      if (!RELEASE_NAME.test(name))
        throw new ExitError("EGP_USAGE", `release reject: ${JSON.stringify(name)} is not a release name`);
      if (!flags.reason.trim()) throw new ExitError("EGP_USAGE", "release reject: --reason must say why");
      const say = (line: string) => process.stderr.write(`${printable(line)}\n`);
      const { rejection, already } = await rejectRelease({
        dir: repositoryDir(flags.dir),
        name,
        reason: flags.reason,
        say,
      });
      const line = already
        ? `Release ${name} was already rejected by ${rejection.actor} at ${rejection.at}: ${rejection.reason}`
        : `Release ${name} rejected: ${rejection.reason}. Plans of environments that name it now exit 1 (EGP_RELEASE_REJECTED).`;
      process.stdout.write(`${printable(line)}\n`);
    });
}

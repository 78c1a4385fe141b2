import type { Command } from "commander";
import { printable } from "../../plan/index.ts";
import { verifyEnvironment, verifyFailure } from "../../release/verify.ts";
import { manifestCacheOf } from "../manifest-cache.ts";
import { clientsOf } from "../plan-environment.ts";
import { withEnvironments } from "../run.ts";

interface VerifyFlags {
  env: string;
}

/*
 * `egp verify --env E`: ends the soak of the release's verification on E (src/release/verify.ts;
 * docs/apply.md, Soak). Exit 0 verified; 1 soaking still (EGP_SOAKING), nothing soaking
 * (EGP_NOT_SOAKING), or changed during the soak (EGP_SOAK_CHANGED, recorded not verified).
 */
export function registerVerifyCommand(program: Command): void {
  program
    .command("verify")
    .description(
      "after an environment's verify.soak, re-check the release's parts and record it verified or not verified",
    )
    .requiredOption("--env <name>", "environment (a file in environments/)")
    .action(async (_options: unknown, command: Command) => {
      await withEnvironments<VerifyFlags>(command, async ({ flags, dir, logger, connections }) => {
        const say = (line: string) => process.stderr.write(`${printable(line)}\n`);
        const outcome = await verifyEnvironment({
          dir,
          env: flags.env,
          open: clientsOf(connections),
          cache: manifestCacheOf(dir),
          logger,
          say,
        });
        const failure = verifyFailure(outcome);
        if (failure) throw failure;
        process.stdout.write(
          `${printable(`Verified: ${outcome.environment} runs release ${outcome.release}; nothing changed during the soak.`)}\n`,
        );
      });
    });
}

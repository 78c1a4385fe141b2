import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Command } from "commander";
import { type Lock, rollBack } from "../../apply/index.ts";
import { openProjectStore } from "../../compose/project-store.ts";
import { environmentOf, readRepository } from "../../manifest/index.ts";
import { installName, printable, writePlanFile } from "../../plan/index.ts";
import { applyOutput } from "../apply-output.ts";
import { ExitError } from "../errors.ts";
import { INTERRUPTED_EXIT_CODE, Interrupts } from "../interrupts.ts";
import { clientsOf } from "../plan-environment.ts";
import { withEnvironments } from "../run.ts";
import { runSteps } from "../run-steps.ts";
import { ensureStateDir, stateDirOf } from "../state-dir.ts";
import { stylesFor } from "../style.ts";
import { confirm, graceMs } from "./apply.ts";
import { render } from "./plan.ts";

interface RollbackFlags {
  env: string;
  to?: string;
  yes?: boolean;
  out?: string;
  prefix: string;
}

/*
 * `egp rollback`: plans, shows, asks (as apply does) and installs the snapshot a promotion took of
 * the environment, then checks it (src/apply/rollback.ts plans it; docs/promotion.md). Exit codes
 * as apply: 0 done and verified, 1 failed, 130 interrupted. A killed rollback run again reuses
 * the upload it had made.
 */
export function registerRollbackCommand(program: Command): void {
  program
    .command("rollback")
    .description("install the snapshot taken before a promotion (the newest, or --to ID), after asking")
    .requiredOption("--env <name>", "environment (a file in environments/)")
    .option("--to <id>", "the install to roll back (see `egp history`); default: the newest")
    .option("--yes", "roll back without asking")
    .option("--out <file>", "also save the rollback's plan (JSON, readable with `egp show`)")
    .option("--prefix <text>", "prefix for the names of the fields the install deactivates", "ROLLBACK_")
    .action(async (_options: unknown, command: Command) => {
      await withEnvironments<RollbackFlags>(command, async ({ flags, dir, logger, connections }) => {
        // As apply's: JSON Lines with --json (sentences on stderr), a live view on a terminal.
        const output = applyOutput({
          json: Boolean(flags.json),
          tty: Boolean(process.stdout.isTTY),
          style: stylesFor(flags).out,
          renderPlan: (plan) => render(plan, "text"),
        });
        const say = (line: string) => output.say(line);
        const env = flags.env;
        if (!flags.yes && !process.stdin.isTTY)
          throw new ExitError("rollback: not a terminal, so nobody can answer the question; pass --yes");
        if (!flags.prefix) throw new ExitError("rollback: --prefix must not be empty");
        const repository = await readRepository(dir);
        const { state: desired } = environmentOf({ ...repository, manifests: [] }, env);
        const stateDir = ensureStateDir(stateDirOf(dir));
        let lock: Lock | undefined;
        const interrupts = new Interrupts({ graceMs: graceMs(), write: say, release: () => lock?.release() });
        const again = `Interrupted; run 'egp rollback --env ${env}' again to finish.`;
        try {
          const outcome = await rollBack({
            env,
            stateDir,
            store: await openProjectStore(dir),
            desired,
            open: clientsOf(connections),
            to: flags.to,
            prefix: flags.prefix,
            onLocked: (held) => {
              lock = held;
            },
            onPrepared: async ({ rollback }) => {
              if (flags.out)
                await writeFile(resolve(flags.out), writePlanFile(rollback.plan), { mode: 0o600 });
              if (rollback.plan.changes.length > 0) output.plan(rollback.plan);
            },
            ...(flags.yes ? {} : { confirm: () => confirm(env, interrupts, output) }),
            execute: (execute) => runSteps({ ...execute, output, interrupts, interrupted: () => again }),
            logger,
          });
          const { release, rollback } = outcome;
          if (outcome.result === "nothing-to-do") {
            say(
              `Nothing to roll back: ${env} already has the versions the snapshot of ${printable(installName(release))} holds.`,
            );
            for (const note of rollback.notes) say(`  # ${printable(note)}`);
            return;
          }
          if (outcome.result === "cancelled") throw new ExitError("rollback cancelled");
          if (outcome.result === "interrupted") throw new ExitError(again, INTERRUPTED_EXIT_CODE);
          if (outcome.result === "incomplete") {
            const { failed, skipped } = outcome.run;
            say(`\nRollback incomplete: ${failed.length} step(s) failed, ${skipped.length} skipped.`);
            for (const failure of failed) say(`  ${printable(`${failure.step}: ${failure.error}`)}`);
            throw new ExitError("rollback finished with failed steps", 1);
          }
          say(
            `\nRollback complete: ${env} has the versions of the snapshot of ${printable(installName(release))} again.`,
          );
          say(`Verified: every part the snapshot holds reads as it did on ${release.snapshot?.takenAt}.`);
          for (const note of rollback.notes.slice(1)) say(`Not undone: ${printable(note)}.`);
        } finally {
          interrupts.dispose();
        }
      });
    });
}

import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Command } from "commander";
import type { Lock } from "../../apply/index.ts";
import { writePlanFile } from "../../plan/index.ts";
import { rollback, rollbackAgain, rollbackVerdict } from "../../release/rollback.ts";
import { recordRollbackVerdict } from "../../release/rollback-records.ts";
import { applyOutput } from "../apply-output.ts";
import { confirm, graceMs } from "../confirm.ts";
import { ExitError, exitOf } from "../errors.ts";
import { Interrupts } from "../interrupts.ts";
import { clientsOf } from "../plan-environment.ts";
import { withEnvironments } from "../run.ts";
import { runSteps } from "../run-steps.ts";
import { assertCanAsk, savedPlanOf } from "../saved-plan.ts";
import { ensureStateDir, stateDirOf } from "../state-dir.ts";
import { stylesFor } from "../style.ts";
import { render } from "./plan.ts";

interface RollbackFlags {
  env?: string;
  to?: string;
  yes?: boolean;
  out?: string;
  prefix: string;
  planOnly?: boolean;
}

/*
 * `egp rollback`: plans, shows, asks (as apply does) and installs the snapshot a promotion took of
 * the environment, then checks it (src/release/rollback.ts; docs/promotion.md). Exit codes
 * as apply: 0 done and verified, 1 failed, 130 interrupted. A killed rollback run again reuses
 * the upload it had made. `--plan-only --out FILE` saves the plan; `egp rollback FILE` runs it.
 */
export function registerRollbackCommand(program: Command): void {
  program
    .command("rollback")
    .description(
      "undo the newest install or records apply (or --to ID): install the snapshot taken before it, or restore its records, after asking",
    )
    .argument("[file]", "a rollback's plan saved with `egp rollback --plan-only --out FILE`, run as reviewed")
    .option("--env <name>", "environment (a file in environments/); a plan file names its own")
    .option(
      "--to <id>",
      "the install (see `egp history`) or record snapshot to roll back; default: the newest",
    )
    .option("--yes", "roll back without asking")
    .option("--out <file>", "also save the rollback's plan (JSON, readable with `egp show`)")
    .option("--plan-only", "show the rollback's plan (and save it with --out), change nothing")
    .option("--prefix <text>", "prefix for the names of the fields the install deactivates", "ROLLBACK_")
    .action(async (file: string | undefined, _options: unknown, command: Command) => {
      await withEnvironments<RollbackFlags>(command, async ({ flags, dir, logger, connections }) => {
        // As apply's: JSON Lines with --json (sentences on stderr), a live view on a terminal.
        const output = applyOutput({
          json: Boolean(flags.json),
          tty: Boolean(process.stdout.isTTY),
          style: stylesFor(flags).out,
          renderPlan: (plan) => render(plan, "text"),
        });
        const say = (line: string) => output.say(line);
        const { saved, env } = await savedPlanOf("rollback", file, flags.env);
        // A saved plan was reviewed when it was made, as with `egp apply FILE`: nothing is asked.
        const asking = !flags.yes && !saved && !flags.planOnly;
        assertCanAsk("rollback", asking, "pass --yes");
        if (!flags.prefix) throw new ExitError("EGP_USAGE", "rollback: --prefix must not be empty");
        const stateDir = ensureStateDir(stateDirOf(dir));
        let lock: Lock | undefined;
        const interrupts = new Interrupts({ graceMs: graceMs(), write: say, release: () => lock?.release() });
        try {
          const outcome = await rollback({
            dir,
            env,
            stateDir,
            say,
            open: clientsOf(connections),
            to: flags.to,
            prefix: flags.prefix,
            ...(saved && file ? { saved, savedFile: file } : {}),
            planOnly: flags.planOnly,
            onLocked: (held) => {
              lock = held;
            },
            onPrepared: async ({ rollback }) => {
              if (flags.out)
                await writeFile(resolve(flags.out), writePlanFile(rollback.plan), { mode: 0o600 });
              if (rollback.plan.changes.length > 0) output.plan(rollback.plan);
            },
            ...(asking ? { confirm: () => confirm(env, interrupts, output) } : {}),
            execute: (execute) =>
              runSteps({ ...execute, output, interrupts, interrupted: () => rollbackAgain(env) }),
            logger,
          });
          const verdict =
            "records" in outcome
              ? recordRollbackVerdict(outcome, flags.out)
              : rollbackVerdict(env, outcome, flags.out);
          for (const line of verdict.lines) say(line);
          if (verdict.failure) throw exitOf(verdict.failure);
        } finally {
          interrupts.dispose();
        }
      });
    });
}

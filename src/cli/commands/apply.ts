import type { Command } from "commander";
import {
  applyFailure,
  interruptedApply,
  JournalUnreadableError,
  type Lock,
  unreadableJournal,
} from "../../apply/index.ts";
import { apply } from "../../release/apply.ts";
import { applyOutput } from "../apply-output.ts";
import { confirm, graceMs } from "../confirm.ts";
import { ExitError, exitOf } from "../errors.ts";
import { Interrupts } from "../interrupts.ts";
import { manifestCacheOf } from "../manifest-cache.ts";
import { clientsOf } from "../plan-environment.ts";
import { withEnvironments } from "../run.ts";
import { runSteps } from "../run-steps.ts";
import { assertCanAsk, savedPlanOf } from "../saved-plan.ts";
import { type SelectionFlags, selectionOf, withSelection } from "../selection.ts";
import { ensureStateDir, stateDirOf } from "../state-dir.ts";
import { stylesFor } from "../style.ts";
import { render } from "./plan.ts";

interface ApplyFlags extends SelectionFlags {
  env?: string;
  yes?: boolean;
  allowDelete?: boolean;
  enforceRoles?: boolean;
  resume?: boolean;
  discard?: boolean;
}

export function registerApplyCommand(program: Command): void {
  const command = program
    .command("apply")
    .description("apply a saved plan, or plan and apply (asks first unless --yes)")
    .argument("[file]", "a plan saved by `egp plan --out`")
    .option("--env <name>", "environment (a file in environments/); a plan file names its own")
    .option("--yes", "apply without asking")
    .option("--allow-delete", "prune what the manifests do not name, whatever the prune policy")
    .option("--enforce-roles", "send roles of every managed user where the instance can't read them back")
    .option("--resume", "finish the interrupted apply pending for the environment")
    .option("--discard", "discard the interrupted apply pending for the environment, applying nothing");
  withSelection(command).action(async (file: string | undefined, _options: unknown, command: Command) => {
    await withEnvironments<ApplyFlags>(command, async ({ flags, dir, logger, connections }) => {
      const json = Boolean(flags.json);
      const output = applyOutput({
        json,
        tty: Boolean(process.stdout.isTTY),
        style: stylesFor(flags).out,
        renderPlan: (plan) => render(plan, "text"),
      });
      const say = (line: string) => output.say(line);
      if (flags.resume && flags.discard)
        throw new ExitError("EGP_USAGE", "apply: --resume and --discard exclude each other");
      const { saved, env } = await savedPlanOf("apply", flags.discard ? undefined : file, flags.env);
      assertCanAsk("apply", !flags.yes && !file && !flags.discard, "pass --yes, or apply a saved plan file");
      const stateDir = ensureStateDir(stateDirOf(dir));
      let lock: Lock | undefined;
      const interrupts = new Interrupts({ graceMs: graceMs(), write: say, release: () => lock?.release() });
      const asking = !flags.yes && !saved;
      try {
        const outcome = await apply({
          dir,
          env,
          stateDir,
          cache: manifestCacheOf(dir),
          open: clientsOf(connections),
          logger,
          options: {
            allowDelete: flags.allowDelete,
            enforceRoles: flags.enforceRoles,
            ...selectionOf(flags),
          },
          ...(saved ? { saved, savedFile: file } : {}),
          resume: flags.resume,
          discard: flags.discard,
          ...(asking ? { confirm: () => confirm(env, interrupts, output) } : {}),
          report: {
            say,
            plan: (plan, { resumed }) => {
              if (!resumed || json || asking) output.plan(plan);
            },
            summary: (summary) => output.summary(summary),
            verification: (check) => output.verification(check),
          },
          execute: (execute) =>
            runSteps({
              ...execute,
              output,
              interrupts,
              interrupted: (done, inFlight) =>
                interruptedApply(env, execute.plan.steps.length, done, inFlight),
            }),
          planKey: process.env.EGP_PLAN_KEY,
          onLocked: (held) => {
            lock = held;
          },
        });
        const failure = applyFailure(env, outcome);
        if (failure) throw exitOf(failure);
      } catch (error) {
        if (error instanceof JournalUnreadableError)
          throw new ExitError("EGP_JOURNAL_UNREADABLE", unreadableJournal(env, error.message), {
            cause: error,
          });
        throw error;
      } finally {
        interrupts.dispose();
      }
    });
  });
}

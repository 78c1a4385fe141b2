import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import { type ApplyOutcome, applyPlan, JournalUnreadableError, type Lock } from "../../apply/index.ts";
import { openProjectStore } from "../../compose/project-store.ts";
import { governApply } from "../../govern/govern-apply.ts";
import { printable, readPlanFile } from "../../plan/index.ts";
import { type ApplyOutput, applyOutput } from "../apply-output.ts";
import { ExitError } from "../errors.ts";
import { INTERRUPTED_EXIT_CODE, Interrupts } from "../interrupts.ts";
import { applyReplan, clientsOf } from "../plan-environment.ts";
import { withEnvironments } from "../run.ts";
import { runSteps } from "../run-steps.ts";
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

export async function confirm(env: string, interrupts: Interrupts, output: ApplyOutput): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: output.prompt });
  // On a terminal, Ctrl-C at the prompt reaches readline, not the process.
  prompt.on("SIGINT", () => interrupts.interrupt());
  try {
    const answer = await prompt.question(
      `\nDo you want to perform these actions on ${printable(env)}?\n  Only 'yes' will be accepted: `,
    );
    return answer.trim() === "yes";
  } finally {
    prompt.close();
  }
}

/** Seconds the steps in flight get to finish after an interrupt (`EGP_INTERRUPT_GRACE_SECONDS`). */
export function graceMs(): number {
  const seconds = Number(process.env.EGP_INTERRUPT_GRACE_SECONDS ?? 30);
  if (!Number.isFinite(seconds) || seconds < 0)
    throw new ExitError("EGP_INTERRUPT_GRACE_SECONDS: not a number of seconds");
  return seconds * 1000;
}

/** The exit an outcome asks for: nothing when the environment converged and every step ran. */
function exitFor(env: string, outcome: ApplyOutcome): ExitError | undefined {
  if (outcome.result === "cancelled") return new ExitError("apply cancelled");
  if (outcome.result === "interrupted") {
    const { plan, run } = outcome;
    const completed = new Set([...run.done, ...run.reused]).size;
    const stopped = run.stopped.length
      ? `, ${run.stopped.length} stopped between tries (checked before anything is written again on resume)`
      : "";
    return new ExitError(
      `Interrupted: ${completed} of ${plan.steps.length} steps done, ${run.notStarted.length} not started${stopped}. ${resumeHint(env)}`,
      INTERRUPTED_EXIT_CODE,
    );
  }
  if (outcome.result === "complete" || outcome.result === "incomplete") {
    if (!outcome.converged) return new ExitError("apply did not converge; see the plan above", 1);
    if (outcome.result === "incomplete") return new ExitError("apply finished with failed steps", 1);
  }
  return undefined;
}

const resumeHint = (env: string) => `Resume with 'egp apply --env ${env} --resume'.`;

export function registerApplyCommand(program: Command): void {
  const command = program
    .command("apply")
    .description("apply a saved plan, or plan and apply (asks first unless --yes)")
    .argument("[file]", "a plan saved by `egp plan --out`")
    .option("--env <name>", "environment (a file in environments/); a plan file names its own")
    .option("--yes", "apply without asking")
    .option("--allow-delete", "prune what the manifests do not name, whatever the prune policy")
    .option("--enforce-roles", "send roles of every managed user (roles can't be read back)")
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
        throw new ExitError("apply: --resume and --discard exclude each other");
      const saved =
        file && !flags.discard ? readPlanFile(await readFile(resolve(file), "utf8"), file) : undefined;
      // As `terraform apply plan.tfplan`: the plan file says where it applies; --env, if given, must agree.
      const env = flags.env ?? saved?.environment;
      if (env === undefined)
        throw new ExitError(
          "apply: required option '--env <name>' not specified (a plan file names its own)",
        );
      if (!flags.yes && !file && !flags.discard && !process.stdin.isTTY) {
        throw new ExitError(
          "apply: not a terminal, so nobody can answer the question; pass --yes, or apply a saved plan file",
        );
      }
      const stateDir = ensureStateDir(stateDirOf(dir));
      let lock: Lock | undefined;
      const interrupts = new Interrupts({ graceMs: graceMs(), write: say, release: () => lock?.release() });
      const asking = !flags.yes && !saved;
      const store = await openProjectStore(dir);
      const governance = await governApply({ dir, env, store, say });
      try {
        const outcome = await applyPlan({
          env,
          stateDir,
          store,
          replan: applyReplan({ dir, connections, logger }, env),
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
                `Interrupted: ${done} of ${execute.plan.steps.length} steps done, ${execute.plan.steps.length - done - inFlight} not started, ` +
                `${inFlight} in flight (checked before anything is written again on resume). ${resumeHint(env)}`,
            }),
          gate: governance.gate,
          planKey: process.env.EGP_PLAN_KEY,
          onLocked: (held) => {
            lock = held;
          },
        });
        await governance.ended({ outcome });
        const exit = exitFor(env, outcome);
        if (exit) throw exit;
      } catch (error) {
        if (!(error instanceof ExitError)) await governance.ended({ error });
        // A journal egp can't read blocks every apply but --discard, which closes it.
        if (error instanceof JournalUnreadableError)
          throw new ExitError(`${error.message}; discard it with 'egp apply --env ${env} --discard'`, 1, {
            cause: error,
          });
        throw error;
      } finally {
        interrupts.dispose();
      }
    });
  });
}

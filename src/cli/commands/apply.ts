import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { setTimeout as delay } from "node:timers/promises";
import type { Command } from "commander";
import type { Logger } from "pino";
import {
  acquireLock,
  assertFresh,
  assertResumable,
  assertSamePlan,
  type Carried,
  carryOver,
  isPassing,
  Journal,
  unsealSaved,
} from "../../apply/index.ts";

import type { PlatformClient } from "../../client/client.ts";
import type { DesiredState } from "../../manifest/index.ts";
import { type Plan, readPlanFile, summarize } from "../../plan/index.ts";
import { type ApplyOutput, applyOutput } from "../apply-output.ts";
import type { Connections } from "../connect.ts";
import { ExitError } from "../errors.ts";
import { getPlan } from "../get-plan.ts";
import { INTERRUPTED_EXIT_CODE, Interrupts } from "../interrupts.ts";
import { pendingApply } from "../pending.ts";
import { withEnvironments } from "../run.ts";
import { runSteps } from "../run-steps.ts";
import { type SelectionFlags, selectionOf, withSelection } from "../selection.ts";
import { ensureStateDir, stateDirOf } from "../state-dir.ts";
import { stylesFor } from "../style.ts";
import { render } from "./plan.ts";

interface ApplyFlags extends SelectionFlags {
  env: string;
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
      `\nDo you want to perform these actions on ${env}?\n  Only 'yes' will be accepted: `,
    );
    return answer.trim() === "yes";
  } finally {
    prompt.close();
  }
}

const PLAN_TRIES = 5;

/**
 * The plans an apply makes (to resume, to apply, to verify) only read, so one that fails for a
 * passing reason (5xx, 429, a lost connection) is read again, as a failed step is tried again: a
 * plan makes many reads, and under heavy faults the client's retries of one of them can run out.
 */
async function planPatiently(
  say: (line: string) => void,
  ...args: Parameters<typeof getPlan>
): ReturnType<typeof getPlan> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await getPlan(...args);
    } catch (error) {
      if (attempt >= PLAN_TRIES || !isPassing(error)) throw error;
      say(
        `Reading the live state failed (${(error as Error).message}); reading it again (try ${attempt + 1} of ${PLAN_TRIES}).`,
      );
      await delay(1_000 * attempt);
    }
  }
}

async function clientsFor(
  plan: Plan,
  desired: DesiredState,
  connections: Connections,
): Promise<Map<string, PlatformClient>> {
  const clients = new Map<string, PlatformClient>();
  clients.set(desired.environment.name, (await connections.open(desired.environment)).client);
  if (desired.packagesFrom && plan.steps.some((s) => s.environment === desired.packagesFrom?.name)) {
    clients.set(desired.packagesFrom.name, (await connections.open(desired.packagesFrom)).client);
  }
  return clients;
}

/** Seconds the steps in flight get to finish after an interrupt (`EGP_INTERRUPT_GRACE_SECONDS`). */
export function graceMs(): number {
  const seconds = Number(process.env.EGP_INTERRUPT_GRACE_SECONDS ?? 30);
  if (!Number.isFinite(seconds) || seconds < 0)
    throw new ExitError("EGP_INTERRUPT_GRACE_SECONDS: not a number of seconds");
  return seconds * 1000;
}

interface RunOptions {
  stateDir: string;
  plan: Plan;
  desired: DesiredState;
  previous?: Carried;
  connections: Connections;
  logger: Logger;
  output: ApplyOutput;
  interrupts: Interrupts;
}

async function run(options: RunOptions): Promise<boolean> {
  const { plan, desired, interrupts } = options;
  const resume = `Resume with 'egp apply --env ${plan.environment} --resume'.`;
  const result = await runSteps({
    plan,
    desired,
    clients: await clientsFor(plan, desired, options.connections),
    journal: Journal.open(options.stateDir, plan),
    previous: options.previous,
    stateDir: options.stateDir,
    concurrency: desired.environment.limits.concurrency,
    logger: options.logger,
    output: options.output,
    interrupts,
    interrupted: (done, inFlight) =>
      `Interrupted: ${done} of ${plan.steps.length} steps done, ${plan.steps.length - done - inFlight} not started, ` +
      `${inFlight} in flight (checked before anything is written again on resume). ${resume}`,
  });
  const completed = new Set([...result.done, ...result.reused]);
  if (result.interrupted) {
    const stopped = result.stopped.length
      ? `, ${result.stopped.length} stopped between tries (checked before anything is written again on resume)`
      : "";
    throw new ExitError(
      `Interrupted: ${completed.size} of ${plan.steps.length} steps done, ${result.notStarted.length} not started${stopped}. ${resume}`,
      INTERRUPTED_EXIT_CODE,
    );
  }
  const done = plan.changes.filter((change) =>
    plan.steps.filter((s) => s.change === change.id).every((s) => completed.has(s.id)),
  );
  // Counted as the plan counts them (summarize), so that the two agree.
  const counted = summarize(done);
  const ok = result.failed.length === 0 && result.skipped.length === 0;
  options.output.summary({
    result: ok ? "complete" : "incomplete",
    environment: plan.environment,
    plan: plan.id,
    added: counted.add,
    changed: counted.change,
    destroyed: counted.destroy,
    promoted: counted.promote,
    failed: result.failed,
    skipped: result.skipped.length,
  });
  return ok;
}

export function registerApplyCommand(program: Command): void {
  const command = program
    .command("apply")
    .description("apply a saved plan, or plan and apply (asks first unless --yes)")
    .argument("[file]", "a plan saved by `egp plan --out`")
    .requiredOption("--env <name>", "environment (a file in environments/)")
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
      const env = flags.env;
      if (flags.resume && flags.discard)
        throw new ExitError("apply: --resume and --discard exclude each other");
      if (!flags.yes && !file && !flags.discard && !process.stdin.isTTY) {
        throw new ExitError(
          "apply: not a terminal, so nobody can answer the question; pass --yes, or apply a saved plan file",
        );
      }
      const stateDir = ensureStateDir(stateDirOf(dir));
      const lock = acquireLock(stateDir, env, `egp apply --env ${env}`);
      const interrupts = new Interrupts({ graceMs: graceMs(), write: say, release: () => lock.release() });
      if (lock.tookOver) {
        const { pid, host, startedAt } = lock.tookOver;
        say(`Took over the lock of pid ${pid} on ${host} (since ${startedAt}), which is gone.`);
      }
      try {
        const options = {
          allowDelete: flags.allowDelete,
          enforceRoles: flags.enforceRoles,
          ...selectionOf(flags),
        };
        const pending = pendingApply(dir, env);
        const progress = pending
          ? `plan ${pending.state.plan.id}, ${pending.state.done.size} of ${pending.state.plan.steps.length} steps done`
          : "";
        if (flags.discard) {
          if (!pending) return say(`No interrupted apply is pending for ${env}; nothing to discard.`);
          pending.journal.close("discarded");
          return say(`Discarded the interrupted apply of ${env} (${progress}).`);
        }
        const saved = file ? readPlanFile(await readFile(resolve(file), "utf8"), file) : undefined;
        if (saved && (options.targets || options.manifests))
          throw new ExitError(
            `${file}: a saved plan applies what it was made with (its own --target and --manifests); give them to egp plan`,
          );
        if (saved && saved.environment !== env)
          throw new ExitError(`${file} is a plan for ${saved.environment}, not ${env}`);
        if (flags.resume && !pending)
          throw new ExitError(`--resume: no interrupted apply is pending for ${env}`);
        if (flags.resume && saved && saved.id !== pending?.state.plan.id)
          throw new ExitError(
            `--resume: ${file} is plan ${saved.id}, but the interrupted apply pending for ${env} is plan ${pending?.state.plan.id}`,
          );
        const resuming =
          pending && (flags.resume || saved?.id === pending.state.plan.id) ? pending : undefined;
        if (pending && !resuming)
          say(
            `An interrupted apply is pending for ${env} (${progress}). This apply plans afresh from the live state, ` +
              `which shows what it did, and discards it once confirmed; to finish it instead: 'egp apply --env ${env} --resume'.`,
          );

        // A saved plan (or the interrupted one being resumed) is derived again with the options it
        // was made with, its targets included, to be compared step by step.
        const planOptions = saved ? saved.options : resuming ? resuming.state.plan.options : options;
        const fresh = await planPatiently(say, dir, env, planOptions, connections, logger);
        let plan = fresh.plan;
        let previous: Carried | undefined;
        if (resuming) {
          assertResumable(resuming.state, fresh.plan);
          plan = unsealSaved(resuming.state.plan, fresh.plan, process.env.EGP_PLAN_KEY);
          previous = resuming.state;
          say(
            `Resuming plan ${plan.id} from ${resuming.journal.file} (${resuming.state.done.size} of ${plan.steps.length} steps done).`,
          );
          if (json || (!flags.yes && !saved)) output.plan(plan);
          if (!flags.yes && !saved && !(await confirm(env, interrupts, output)))
            throw new ExitError("apply cancelled");
        } else {
          if (saved) {
            assertFresh(saved, fresh.plan);
            assertSamePlan(saved, fresh.plan);
            plan = unsealSaved(saved, fresh.plan, process.env.EGP_PLAN_KEY);
          }
          output.plan(plan);
          if (plan.changes.length === 0) {
            pending?.journal.close("superseded", plan.id);
            if (pending) say(`Discarded the interrupted apply (${progress}): nothing is left to do.`);
            return output.summary({
              result: "no-changes",
              environment: env,
              plan: plan.id,
              added: 0,
              changed: 0,
              destroyed: 0,
              promoted: 0,
              failed: [],
              skipped: 0,
            });
          }
          if (!flags.yes && !saved && !(await confirm(env, interrupts, output)))
            throw new ExitError("apply cancelled");
          if (pending) {
            pending.journal.close("superseded", plan.id);
            previous = carryOver(pending.state, plan);
            say(`Discarded the interrupted apply (${progress}), superseded by plan ${plan.id}.`);
          }
        }
        const ok = await run({
          stateDir,
          plan,
          desired: fresh.desired,
          previous,
          connections,
          logger,
          output,
          interrupts,
        });

        // Verification: a fresh plan must show no changes.
        const check = await planPatiently(say, dir, env, planOptions, connections, logger);
        output.verification(check.plan);
        if (check.plan.changes.length > 0)
          throw new ExitError("apply did not converge; see the plan above", 1);
        if (!ok) throw new ExitError("apply finished with failed steps", 1);
      } finally {
        interrupts.dispose();
        lock.release();
      }
    });
  });
}

import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { setTimeout as delay } from "node:timers/promises";
import type { Command } from "commander";
import type { Logger } from "pino";
import { acquireLock, executePlan, isPassing, Journal, type JournalState } from "../../apply/index.ts";
import type { PlatformClient } from "../../client/client.ts";
import type { DesiredState } from "../../manifest/index.ts";
import { type Plan, readPlanFile, renderText } from "../../plan/index.ts";
import { applyPrinter } from "../apply-output.ts";
import type { Connections } from "../connect.ts";
import { ExitError } from "../errors.ts";
import { getPlan } from "../get-plan.ts";
import { withEnvironments } from "../run.ts";
import { assertFresh } from "../stale.ts";

interface ApplyFlags {
  env: string;
  yes?: boolean;
  allowDelete?: boolean;
  enforceRoles?: boolean;
}

async function confirm(env: string): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
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
async function planPatiently(...args: Parameters<typeof getPlan>): ReturnType<typeof getPlan> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await getPlan(...args);
    } catch (error) {
      if (attempt >= PLAN_TRIES || !isPassing(error)) throw error;
      process.stdout.write(
        `Reading the live state failed (${(error as Error).message}); reading it again (try ${attempt + 1} of ${PLAN_TRIES}).\n`,
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

interface RunOptions {
  dir: string;
  stateDir: string;
  plan: Plan;
  desired: DesiredState;
  previous?: JournalState;
  connections: Connections;
  logger: Logger;
  json: boolean;
}

async function run(options: RunOptions): Promise<boolean> {
  const { plan, desired } = options;
  const journal = Journal.open(options.stateDir, plan);
  const result = await executePlan({
    plan,
    desired,
    clients: await clientsFor(plan, desired, options.connections),
    journal,
    previous: options.previous,
    stateDir: options.stateDir,
    concurrency: desired.environment.limits.concurrency,
    logger: options.logger,
    onEvent: applyPrinter({ json: options.json, tty: Boolean(process.stdout.isTTY) }),
  });
  const completed = new Set([...result.done, ...result.reused]);
  const finished = plan.changes.filter((change) =>
    plan.steps.filter((s) => s.change === change.id).every((s) => completed.has(s.id)),
  );
  const count = (...actions: string[]) => finished.filter((c) => actions.includes(c.action)).length;
  const summary = `${count("create")} added, ${count("update", "deactivate", "promote")} changed, ${count("delete")} deleted`;
  if (result.failed.length === 0 && result.skipped.length === 0) {
    process.stdout.write(`\nApply complete: ${summary}.\n`);
    return true;
  }
  process.stdout.write(
    `\nApply incomplete: ${summary}; ${result.failed.length} step(s) failed, ${result.skipped.length} skipped.\n`,
  );
  for (const failure of result.failed) process.stdout.write(`  ${failure.step}: ${failure.error}\n`);
  return false;
}

export function registerApplyCommand(program: Command): void {
  program
    .command("apply")
    .description("apply a saved plan, or plan and apply (asks first unless --yes)")
    .argument("[file]", "a plan saved by `egp plan --out`")
    .requiredOption("--env <name>", "environment (a file in environments/)")
    .option("--yes", "apply without asking")
    .option("--allow-delete", "prune what the manifests do not name, whatever the prune policy")
    .option("--enforce-roles", "send roles of every managed user (roles can't be read back)")
    .action(async (file: string | undefined, _options: unknown, command: Command) => {
      await withEnvironments<ApplyFlags>(command, async ({ flags, dir, logger, connections }) => {
        const json = Boolean(flags.json);
        if (!flags.yes && !file && !process.stdin.isTTY) {
          throw new ExitError(
            "apply: not a terminal, so nobody can answer the question; pass --yes, or apply a saved plan file",
          );
        }
        const stateDir = join(dir, ".egp");
        const lock = acquireLock(stateDir, flags.env, `egp apply --env ${flags.env}`);
        if (lock.tookOver) {
          const { pid, host, startedAt } = lock.tookOver;
          process.stdout.write(
            `Took over the lock of pid ${pid} on ${host} (since ${startedAt}), which is gone.\n`,
          );
        }
        try {
          const options = { allowDelete: flags.allowDelete, enforceRoles: flags.enforceRoles };
          let ok = true;

          // An apply that crashed is finished first, reusing what it did (DESIGN §3).
          const unfinished = Journal.unfinished(stateDir, flags.env);
          if (unfinished) {
            const { state } = unfinished;
            process.stdout.write(
              `Resuming plan ${state.plan.id} from ${unfinished.journal.file} (${state.done.size} of ${state.plan.steps.length} steps done).\n`,
            );
            const { desired } = await planPatiently(dir, flags.env, options, connections, logger);
            ok = await run({
              dir,
              stateDir,
              plan: state.plan,
              desired,
              previous: state,
              connections,
              logger,
              json,
            });
          }

          const fresh = await planPatiently(dir, flags.env, options, connections, logger);
          let plan = fresh.plan;
          if (file && !unfinished) {
            const saved = readPlanFile(await readFile(resolve(file), "utf8"), file);
            if (saved.environment !== flags.env) {
              throw new ExitError(`${file} is a plan for ${saved.environment}, not ${flags.env}`);
            }
            assertFresh(saved, fresh.plan);
            plan = saved;
          }
          if (plan.changes.length > 0) {
            process.stdout.write(renderText(plan));
            if (!flags.yes && !file && !(await confirm(flags.env))) throw new ExitError("apply cancelled");
            ok =
              (await run({ dir, stateDir, plan, desired: fresh.desired, connections, logger, json })) && ok;
          } else if (!unfinished) {
            process.stdout.write(`No changes. ${flags.env} matches the manifests.\n`);
            return;
          }

          // Verification: a fresh plan must show no changes.
          const check = await planPatiently(dir, flags.env, options, connections, logger);
          if (check.plan.changes.length > 0) {
            process.stdout.write(
              `\nVerification: ${flags.env} still differs from the manifests:\n${renderText(check.plan)}`,
            );
            throw new ExitError("apply did not converge; see the plan above", 1);
          }
          process.stdout.write(`Verified: ${flags.env} matches the manifests.\n`);
          if (!ok) throw new ExitError("apply finished with failed steps", 1);
        } finally {
          lock.release();
        }
      });
    });
}

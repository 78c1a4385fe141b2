import type { Command } from "commander";

import { ExitError } from "../errors.ts";
import { issueLine } from "../issue-line.ts";
import { pendingNotice } from "../pending.ts";
import { planWith } from "../plan-environment.ts";
import { withEnvironments } from "../run.ts";
import { type SelectionFlags, selectionOf, withSelection } from "../selection.ts";
import { type Format, formatOption, printPlan } from "./plan.ts";

interface DriftFlags extends SelectionFlags {
  env: string;
  format: Format;
}

/**
 * A read-only plan as a drift report: exit 0 when the environment matches the manifests, 2 when it
 * has drifted, 1 on error. Writes that can't be read back (passwords; roles where the instance does
 * not answer the role reads) are never drift.
 */
export function registerDriftCommand(program: Command): void {
  const command = program
    .command("drift")
    .description("report how an environment differs from the manifests (exit 0 none, 2 drift, 1 error)")
    .requiredOption("--env <name>", "environment (a file in environments/)")
    .addOption(formatOption())
    // Terraform's `plan -detailed-exitcode` is what drift always does: accepted, so that it changes nothing.
    .option("--detailed-exitcode", "accepted for Terraform users; drift's exit codes are always 0, 1 and 2");
  withSelection(command).action(async (_options: unknown, command: Command) => {
    await withEnvironments<DriftFlags>(command, async ({ flags, dir, logger, connections }) => {
      const { plan, warnings, desired } = await planWith(
        { dir, connections, logger, view: true },
        flags.env,
        selectionOf(flags),
      );
      for (const warning of warnings) process.stderr.write(`${issueLine(warning)}\n`);
      const pending = pendingNotice(dir, flags.env);
      if (pending) process.stderr.write(`${pending}\n`);
      printPlan(plan, flags, "drift");
      if (plan.summary.drift === 0) return;
      // Loaded only when there is drift to tell: a clean drift check loads no webhook code.
      const { driftNotice, notifierFor } = await import("../../release/notify.ts");
      const notify = await notifierFor(dir, (line) => process.stderr.write(`${line}\n`));
      // A rejected release was left out of the comparison, not out of the environment's file.
      await notify(driftNotice(plan, desired.release?.name ?? plan.rejectedRelease?.release));
      throw new ExitError("EGP_DIFFERENCES", "");
    });
  });
}

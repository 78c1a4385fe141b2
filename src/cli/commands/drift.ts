import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Command } from "commander";

import type { Plan } from "../../plan/index.ts";
import {
  type DriftReport,
  findingsJson,
  renderFindingsMarkdown,
  renderFindingsText,
} from "../../release/drift-render.ts";
import { ExitError } from "../errors.ts";
import { issueLine } from "../issue-line.ts";
import { pendingNotice } from "../pending.ts";
import { withEnvironments } from "../run.ts";
import { type SelectionFlags, selectionOf, withSelection } from "../selection.ts";
import { paintPlan, stylesFor } from "../style.ts";
import { driftReport, registerDriftAckCommand } from "./drift-ack.ts";
import { type Format, formatOption, render } from "./plan.ts";

interface DriftFlags extends SelectionFlags {
  env: string;
  format: Format;
  json?: boolean;
  color?: boolean;
  out?: string;
}

// Nothing for a plan to do is not "matches" while findings are open (what only the target has, what was not read).
const TEXT_MATCHES = /^No drift\. (.+) matches the manifests\.$/m;
const MARKDOWN_MATCHES = /^### egp drift: (.+) matches the manifests$/m;
const NOT_ALL_MATCHES = "Nothing for a plan to change on $1, but findings are open (below).";
const MARKDOWN_NOT_ALL = "### egp drift: $1 has open findings";

/** The plan as drift reports it, its findings after it (JSON: beside the plan's own fields). */
function printDrift(plan: Plan, report: DriftReport, flags: DriftFlags): void {
  if (flags.json || flags.format === "json") {
    const json = { ...plan, ...findingsJson(report) };
    process.stdout.write(flags.json ? `${JSON.stringify(json)}\n` : `${JSON.stringify(json, null, 2)}\n`);
    return;
  }
  const listed = report.open.length + report.acknowledged.length + report.unused.length > 0;
  if (flags.format === "markdown") {
    const markdown = render(plan, "markdown", "drift");
    const said = report.open.length ? markdown.replace(MARKDOWN_MATCHES, MARKDOWN_NOT_ALL) : markdown;
    process.stdout.write(said + (listed ? renderFindingsMarkdown(report) : ""));
    return;
  }
  const plain = render(plan, "text", "drift");
  const said = report.open.length ? plain.replace(TEXT_MATCHES, NOT_ALL_MATCHES) : plain;
  const text = said + (listed ? renderFindingsText(report) : "");
  process.stdout.write(paintPlan(text, stylesFor(flags).out));
}

/**
 * A read-only plan as a drift report: each difference a finding with a fingerprint; exit 0 when
 * none is open, 2 when some are, 1 on error. Writes that can't be read back (passwords; roles
 * where the instance does not answer the role reads) are never drift.
 */
export function registerDriftCommand(program: Command): void {
  const command = program
    .command("drift")
    .description("report how an environment differs from the manifests (exit 0 none, 2 drift, 1 error)")
    // Checked in the action: a required option here would be required of `drift ack` too.
    .option("--env <name>", "environment (a file in environments/)")
    .addOption(formatOption())
    // Terraform's `plan -detailed-exitcode` is what drift always does: accepted, so that it changes nothing.
    .option("--out <file>", "also write the JSON report (every finding) to a file, as CI keeps it")
    .option("--detailed-exitcode", "accepted for Terraform users; drift's exit codes are always 0, 1 and 2");
  registerDriftAckCommand(command);
  withSelection(command).action(async (_options: unknown, command: Command) => {
    await withEnvironments<DriftFlags>(command, async ({ flags, dir, logger, connections }) => {
      if (!flags.env) throw new ExitError("EGP_USAGE", "required option '--env <name>' not specified");
      const { view, report } = await driftReport(
        { dir, connections, logger },
        flags.env,
        selectionOf(flags),
        new Date(),
      );
      const { plan, warnings, desired } = view;
      for (const warning of warnings) process.stderr.write(`${issueLine(warning)}\n`);
      const pending = pendingNotice(dir, flags.env);
      if (pending) process.stderr.write(`${pending}\n`);
      printDrift(plan, report, flags);
      if (flags.out)
        await writeFile(
          resolve(flags.out),
          `${JSON.stringify({ ...plan, ...findingsJson(report) }, null, 2)}\n`,
        );
      if (report.open.length === 0) return;
      // Loaded only when there is drift to tell: a clean drift check loads no webhook code.
      const { driftNotice, notifierFor } = await import("../../release/notify.ts");
      const notify = await notifierFor(dir, (line) => process.stderr.write(`${line}\n`));
      // A rejected release was left out of the comparison, not out of the environment's file.
      await notify(driftNotice(plan, desired.release?.name ?? plan.rejectedRelease?.release, report.open));
      throw new ExitError("EGP_DIFFERENCES", "");
    });
  });
}

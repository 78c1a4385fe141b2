import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { type Command, Option } from "commander";
import { openProjectStore } from "../../compose/project-store.ts";
import { environmentNames } from "../../manifest/index.ts";
import { filterAudit } from "../../release/audit.ts";
import { acknowledgeBreak } from "../../release/audit-acknowledge.ts";
import { readAudit } from "../../release/audit-chain.ts";
import { type AuditFormat, renderAudit, unverifiableLine } from "../../release/audit-report.ts";
import { unfinishedApplies } from "../../release/unfinished.ts";
import { ExitError, unknownEnvironment } from "../errors.ts";
import { type GlobalFlags, repositoryDir } from "../run.ts";

interface AuditFlags extends GlobalFlags {
  env?: string;
  since?: string;
  until?: string;
  format: AuditFormat;
  out?: string;
}

/** A date (the whole day, UTC) or an instant; `end` takes a date's last moment. */
function instant(flag: string, value: string | undefined, end: boolean): Date | undefined {
  if (value === undefined) return undefined;
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const at = new Date(day ? `${value}T${end ? "23:59:59.999" : "00:00:00.000"}Z` : value);
  if (Number.isNaN(at.getTime()))
    throw new ExitError(
      "EGP_USAGE",
      `${flag}: expected a date (2026-11-28) or an instant, not ${JSON.stringify(value)}`,
    );
  return at;
}

/** `egp audit`: the store's audit trail, its chain checked (exit 0 holds, 1 broken). */
export function registerAuditCommand(program: Command): void {
  const audit = program
    .command("audit")
    .description("list the audit records of the release store and check their chain (exit 0 holds, 1 broken)")
    .option("--env <name>", "only records of this environment")
    .option("--since <date>", "only records at or after this date or instant")
    .option("--until <date>", "only records at or before this date or instant")
    .addOption(
      new Option("--format <format>", "output format")
        .choices(["text", "json", "csv", "html"])
        .default("text"),
    )
    .option("--out <file>", "write the report to a file instead of standard output")
    .action(async (_options: unknown, command: Command) => {
      const flags = command.optsWithGlobals<AuditFlags>();
      const dir = repositoryDir(flags.dir);
      const filter = {
        ...(flags.env ? { environment: flags.env } : {}),
        ...(flags.since ? { since: instant("--since", flags.since, false) } : {}),
        ...(flags.until ? { until: instant("--until", flags.until, true) } : {}),
      };
      const chain = await readAudit(await openProjectStore(dir));
      // A typo must not read as an environment with a clean trail; one whose file was removed
      // keeps its records, so a name the trail holds is taken too.
      if (flags.env && !chain.records.some((record) => record.environment === flags.env)) {
        const known = await environmentNames(dir);
        if (!known.includes(flags.env)) throw unknownEnvironment(flags.env, known);
      }
      const words = [
        flags.env && `of ${flags.env}`,
        flags.since && `since ${flags.since}`,
        flags.until && `until ${flags.until}`,
      ];
      const report = {
        records: filterAudit(chain.records, filter),
        chain,
        filters: words.filter(Boolean).join(", "),
        unfinished: unfinishedApplies(chain.records),
      };
      const text = `${renderAudit(report, flags.format)}\n`;
      if (flags.out) {
        await writeFile(resolve(flags.out), text, { mode: 0o600 });
        process.stdout.write(`wrote ${flags.out}\n`);
      } else process.stdout.write(text);
      if (chain.broken)
        throw new ExitError(
          "EGP_AUDIT_BROKEN",
          `the audit chain is broken at ${chain.broken.key}: ${chain.broken.why}`,
        );
      const unverifiable = unverifiableLine(chain);
      if (unverifiable) throw new ExitError("EGP_AUDIT_UNVERIFIABLE", unverifiable);
    });
  audit
    .command("acknowledge-break")
    .description("record that the audit chain's breaks were looked into, so that changes may go on")
    .requiredOption("--reason <text>", "what was found, for the record")
    .action(async (_options: unknown, command: Command) => {
      const flags = command.optsWithGlobals<GlobalFlags & { reason: string }>();
      if (flags.reason.trim() === "")
        throw new ExitError("EGP_USAGE", "--reason: say what was found (it goes into the record)");
      const store = await openProjectStore(repositoryDir(flags.dir));
      const { record, breaks } = await acknowledgeBreak(store, flags.reason);
      if (!record) {
        process.stdout.write("The chain has no open break: nothing to acknowledge.\n");
        return;
      }
      const lines = breaks.map((b) => `  ${b.key}: ${b.why}\n`).join("");
      process.stdout.write(
        `Acknowledged ${breaks.length} break${breaks.length === 1 ? "" : "s"} in audit record #${record.sequence}:\n${lines}`,
      );
    });
}

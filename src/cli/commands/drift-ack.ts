import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Command } from "commander";
import {
  DEFAULT_MAX_ACK_DAYS,
  DRIFT_ACKS_DIR,
  driftAckText,
  readDriftAcks,
  untilTooFar,
} from "../../manifest/drift-ack.ts";
import { fieldWordsOf } from "../../manifest/index.ts";
import { loadProject } from "../../manifest/project.ts";
import { actorOf } from "../../release/actor.ts";
import { matchAcks } from "../../release/drift-acks.ts";
import { type Finding, SEALED_UNAVAILABLE, viewFindings } from "../../release/drift-findings.ts";
import type { DriftReport } from "../../release/drift-render.ts";
import type { Connections } from "../connect.ts";
import { driftSealOption } from "../drift-seal.ts";
import { ExitError } from "../errors.ts";
import { planWith } from "../plan-environment.ts";
import { withEnvironments } from "../run.ts";

interface AckFlags {
  env: string;
  reason: string;
  until: string;
}

/** How far ahead an acknowledgement may run: egp.yaml's `drift.maxAcknowledgementDays`, else 90 days. */
export async function maxAckDays(dir: string): Promise<number> {
  return (await loadProject(dir)).drift?.maxAcknowledgementDays ?? DEFAULT_MAX_ACK_DAYS;
}

/**
 * One drift run's report of `env`: its findings, the repository's acknowledgements matched to them
 * at `now`. Read only: the same reads as `egp drift`.
 */
export async function driftReport(
  context: { dir: string; connections: Connections; logger: Parameters<typeof planWith>[0]["logger"] },
  env: string,
  options: Parameters<typeof planWith>[2],
  now: Date,
) {
  const view = await planWith({ ...context, view: true }, env, options);
  const findings = viewFindings(view, { words: fieldWordsOf, ...driftSealOption() });
  const acks = await readDriftAcks(context.dir, { maxDays: await maxAckDays(context.dir), now });
  const report: DriftReport = matchAcks(env, findings, acks, now);
  return { view, report };
}

const refused = (message: string) => new ExitError("EGP_DRIFT_ACK_REFUSED", message);

/** `--until` as given: a calendar date, today or later, within the repository's limit. */
function checkUntil(until: string, maxDays: number, now: Date): void {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(until) || Number.isNaN(Date.parse(`${until}T00:00:00Z`)))
    throw refused(`--until ${until}: expected a date, such as 2027-01-31`);
  if (until < now.toISOString().slice(0, 10)) throw refused(`--until ${until}: is in the past`);
  const tooFar = untilTooFar(until, maxDays, now);
  if (tooFar) throw refused(`--until ${tooFar}`);
}

function findingOf(report: DriftReport, fingerprint: string): Finding {
  const finding = [...report.open, ...report.acknowledged].find((f) => f.fingerprint === fingerprint);
  if (!finding)
    throw refused(
      `no finding of ${report.environment} has the fingerprint ${fingerprint} now (egp drift --env ${report.environment} lists them)`,
    );
  return finding;
}

/** `egp drift ack`: writes `drift-acks/<env>-<fingerprint>.yaml` for a pull request. */
export function registerDriftAckCommand(drift: Command): void {
  drift
    .command("ack")
    .description("acknowledge one drift finding: writes drift-acks/<env>-<fingerprint>.yaml to commit")
    .argument("<fingerprint>", "the finding's fingerprint, as egp drift prints it")
    // Not required here: `drift`'s own --env may take it (optsWithGlobals gives either); checked below.
    .option("--env <name>", "environment (a file in environments/)")
    .requiredOption("--reason <text>", "why the difference is known and left")
    .requiredOption("--until <date>", "the last day it holds (YYYY-MM-DD, UTC)")
    .action(async (fingerprint: string, _options: unknown, command: Command) => {
      await withEnvironments<AckFlags>(command, async ({ flags, dir, logger, connections }) => {
        const now = new Date();
        if (!flags.env) throw new ExitError("EGP_USAGE", "required option '--env <name>' not specified");
        if (flags.reason.trim() === "") throw refused("--reason: say why the difference is known and left");
        checkUntil(flags.until, await maxAckDays(dir), now);
        const { report } = await driftReport({ dir, connections, logger }, flags.env, {}, now);
        const finding = findingOf(report, fingerprint);
        const file = `${DRIFT_ACKS_DIR}/${flags.env}-${fingerprint}.yaml`;
        await mkdir(join(dir, DRIFT_ACKS_DIR), { recursive: true });
        const text = driftAckText({
          environment: flags.env,
          fingerprint,
          valueHash: finding.valueHash,
          reason: flags.reason.trim(),
          until: flags.until,
          by: actorOf(),
        });
        await writeFile(join(dir, file), text);
        // Without the shared key a sensitive value has no hash: the acknowledgement can't see it change.
        const blind =
          finding.valueHash === SEALED_UNAVAILABLE
            ? " (its value is sensitive and EGP_SIGNING_KEY is not set: it holds whatever the value becomes)"
            : "";
        process.stdout.write(
          `wrote ${file}: ${finding.label}, ${finding.partLabel}, acknowledged until ${flags.until}${blind}; commit it in a pull request\n`,
        );
      });
    });
}

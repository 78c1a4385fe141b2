import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { statOf } from "../io/private-dir.ts";
import { ENVIRONMENT_NAME } from "./environment-name.ts";
import { notPlain, readPlain } from "./freeze-exception.ts";
import { checkKnownEnvironment, parseOneDocument } from "./one-document.ts";

/*
 * A drift finding someone knows about: `drift-acks/<name>.yaml`, committed so that it was reviewed
 * in a pull request, as a freeze exception is. It names one environment, the finding's fingerprint
 * and the value hash of the live value it accepts, why, until when, and who wrote it.
 */

export const DRIFT_ACKS_DIR = "drift-acks";

const WHAT = "a drift acknowledgement";

/** The longest an acknowledgement may run, in days, unless egp.yaml says otherwise (`drift.maxAcknowledgementDays`). */
export const DEFAULT_MAX_ACK_DAYS = 90;

export const DriftAckDocument = z
  .strictObject({
    environment: z.string().regex(ENVIRONMENT_NAME, "expected an environment name (a file in environments/)"),
    fingerprint: z
      .string()
      .regex(/^[0-9a-f]{16}$/, "expected a finding's fingerprint (16 hex digits, as egp drift prints it)"),
    valueHash: z
      .string()
      .regex(
        /^((sha256|hmac-sha256):[0-9a-f]{64}|sealed:unavailable)$/,
        "expected the finding's value hash, as egp drift prints it",
      ),
    reason: z.string().trim().min(1, "a reason is required"),
    until: z.iso
      .date({ error: "expected a date, such as 2027-01-31" })
      .describe("The last day it holds (UTC)."),
    by: z.string().min(1).describe("Who wrote it: EGP_ACTOR, GITHUB_ACTOR or the OS user."),
  })
  .describe("A reviewed acknowledgement of one drift finding.");

export interface DriftAck {
  name: string;
  /** Repository-relative path. */
  file: string;
  environment: string;
  fingerprint: string;
  valueHash: string;
  reason: string;
  /** `YYYY-MM-DD`: the last day it holds, in UTC. */
  until: string;
  by: string;
}

/** The instant an acknowledgement ends: the end of its `until` day, UTC. */
export function ackEnds(until: string): number {
  return Date.parse(`${until}T00:00:00Z`) + 86_400_000;
}

/**
 * An acknowledgement read from its text. With `knownEnvironments` (validate), one naming another
 * environment is refused; with `maxDays` and `now`, one that runs further ahead than that.
 */
export function parseDriftAck(
  file: string,
  name: string,
  text: string,
  check: { knownEnvironments?: ReadonlySet<string>; maxDays?: number; now?: Date } = {},
): DriftAck {
  const data = parseOneDocument(file, text, DriftAckDocument, ({ environment, until }, report) => {
    checkKnownEnvironment(environment, check.knownEnvironments, report);
    const tooFar = untilTooFar(until, check.maxDays, check.now);
    if (tooFar) report.error(["until"], tooFar);
  });
  return { name, file, ...data };
}

/** Why `until` is refused: more than `maxDays` ahead of `now`; undefined when it is not. */
export function untilTooFar(
  until: string,
  maxDays: number | undefined,
  now: Date | undefined,
): string | undefined {
  if (maxDays === undefined || !now) return undefined;
  const days = Math.ceil((ackEnds(until) - now.getTime()) / 86_400_000) - 1;
  if (days <= maxDays) return undefined;
  return `${until} is ${days} days ahead, more than ${maxDays} (egp.yaml drift.maxAcknowledgementDays); a finding acknowledged for longer is one nobody looks at again`;
}

/**
 * Every acknowledgement of the repository; none when the folder is absent. A malformed one is an
 * error, and so are a symbolic link and a file over the freeze exceptions' bound.
 */
export async function readDriftAcks(
  dir: string,
  check: { knownEnvironments?: ReadonlySet<string>; maxDays?: number; now?: Date } = {},
): Promise<DriftAck[]> {
  if (statOf(join(dir, DRIFT_ACKS_DIR))?.isSymbolicLink())
    throw notPlain(DRIFT_ACKS_DIR, "is a symbolic link", WHAT);
  const names = await readdir(join(dir, DRIFT_ACKS_DIR)).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [];
    throw error;
  });
  const acks: DriftAck[] = [];
  for (const entry of names.filter((name) => /\.ya?ml$/.test(name)).sort()) {
    const file = `${DRIFT_ACKS_DIR}/${entry}`;
    const text = await readPlain(dir, file, WHAT);
    acks.push(parseDriftAck(file, entry.replace(/\.ya?ml$/, ""), text, check));
  }
  return acks;
}

/** The text of a new acknowledgement's file. */
export function driftAckText(ack: Omit<DriftAck, "name" | "file">): string {
  const quoted = (value: string) => JSON.stringify(value);
  return [
    `environment: ${ack.environment}`,
    `fingerprint: ${quoted(ack.fingerprint)}`,
    `valueHash: ${quoted(ack.valueHash)}`,
    `reason: ${quoted(ack.reason)}`,
    `until: ${quoted(ack.until)}`,
    `by: ${quoted(ack.by)}`,
    "",
  ].join("\n");
}

import { runMain } from "./context.ts";

/*
 * The wait of the release workflow's soak job, before `egp verify`:
 *
 *   node scripts/ci/soak-wait.ts   (SOAK=30m)
 *
 * SOAK is the environment file's `verify.soak`, in egp's duration forms (`90`, `30s`, `30m`,
 * `1.5h`); it comes in through the environment, never pasted into shell code. A job lasts at most
 * 6 hours on GitHub's runners, so a longer soak is refused here rather than cut off there.
 */

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
export const LONGEST_MS = 6 * 3_600_000 - 10 * 60_000;

export function soakMs(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new Error(`verify-after ${JSON.stringify(text)} is not a duration (30s, 30m, 1.5h)`);
  const ms = Number(match[1]) * (UNITS[match[2] ?? "s"] ?? 1_000);
  if (ms > LONGEST_MS)
    throw new Error(
      `verify-after ${text} is longer than a runner's job may wait; run egp verify by hand or on a schedule`,
    );
  return ms;
}

export async function main(
  env: Record<string, string | undefined> = process.env,
  sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
): Promise<number> {
  const ms = soakMs(env.SOAK ?? "");
  process.stdout.write(`Waiting ${env.SOAK} for the soak to end, then egp verify.\n`);
  await sleep(ms);
  return 0;
}

if (import.meta.main) runMain(() => main());

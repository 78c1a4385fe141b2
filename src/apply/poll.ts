import { currentRetryBudget } from "../client/retry-budget.ts";
import { ApplyError } from "./errors.ts";

/*
 * Waiting for a platform job by reading until it is done. The pauses double from a short first one,
 * so that the emulator's jobs (a few hundred ms) are seen at once, and their cap grows with the
 * wait, so that a job of an hour on a real instance costs a read a minute, not one every 5 s.
 */

/** The longest pause between two reads once `elapsedMs` of the wait have passed. */
export function pollCapMs(elapsedMs: number): number {
  if (elapsedMs < 60_000) return 5_000;
  if (elapsedMs < 300_000) return 15_000;
  if (elapsedMs < 900_000) return 30_000;
  return 60_000;
}

/** The pause that follows `pauseMs`, `elapsedMs` into the wait. */
export function nextPauseMs(pauseMs: number, elapsedMs: number): number {
  return Math.min(pauseMs * 2, pollCapMs(elapsedMs));
}

export interface PollOptions {
  /** What is awaited, for the timeout's message: `the install job`. */
  what: string;
  limitMs: number;
  /** Where the limit is set, for the timeout's message: `timeouts.job of prod`. */
  limitName: string;
  firstPauseMs: number;
  /** The first read waits the first pause: a job just asked for is not done at once, and that read would be spent. */
  waitFirst?: boolean;
  sleep(ms: number): Promise<void>;
  /** Told before each pause. */
  onPause?(ms: number): void;
  now?: () => number;
}

/**
 * Calls `attempt` until it gives something other than undefined, within `limitMs`: the last pause
 * is cut short so that the last read is made at the limit, then the wait fails with EGP_JOB_TIMEOUT.
 */
export async function poll<T>(options: PollOptions, attempt: () => Promise<T | undefined>): Promise<T> {
  const now = options.now ?? Date.now;
  const started = now();
  let pause = options.firstPauseMs;
  if (options.waitFirst) {
    options.onPause?.(Math.min(pause, options.limitMs));
    await options.sleep(Math.min(pause, options.limitMs));
    currentRetryBudget()?.extend(pause);
    pause = nextPauseMs(pause, now() - started);
  }
  for (;;) {
    const result = await attempt();
    if (result !== undefined) return result;
    const elapsed = now() - started;
    if (elapsed >= options.limitMs)
      throw new ApplyError(
        "EGP_JOB_TIMEOUT",
        `${options.what}: gave up after ${Math.round(elapsed / 1000)} s (${options.limitName})`,
      );
    const ms = Math.min(pause, options.limitMs - elapsed);
    options.onPause?.(ms);
    await options.sleep(ms);
    // A wait asked for is not retry time: a passing fault late in a long job may still be retried.
    currentRetryBudget()?.extend(ms);
    pause = nextPauseMs(pause, now() - started);
  }
}

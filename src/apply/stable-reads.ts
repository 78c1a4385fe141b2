import { currentRetryBudget } from "../client/retry-budget.ts";
import { ApplyError } from "./errors.ts";
import { nextPauseMs } from "./poll.ts";

/*
 * The verdict on an install, from stable reads. An install job that succeeded is not an install
 * that is done: a part may land late, or be recalculated after it first matched. So the installed
 * parts count as converged only when two reads `intervalMs` apart are equal to each other and to
 * what the plan expects. They are re-read for at most `settleMs`; then the package is installed again
 * from the same file, at most `reinstalls` times, each a pass of its own; a part that never
 * converges ends with EGP_INSTALL_DIVERGED, naming what differs. `overallMs` (the environment's
 * `timeouts.verify`) bounds the whole verification, re-installs included, as it always has.
 */

/**
 * The verification of an environment whose config was made without its file's defaults (a library
 * caller's): the defaults an environment file gets (manifest/verify-settings.ts).
 */
export const UNDESCRIBED_VERIFY = { intervalMs: 2_000, settleMs: 300_000, reinstalls: 1 } as const;

export type Verdict = "converged" | "converged after re-install";

export interface Read {
  /** What differs from the plan's expectation, in words (empty: it all matches). */
  differing: string[];
  /** What was read of the installed parts, to tell two reads apart (a digest). */
  state: string;
}

export interface StableReadOptions {
  read(): Promise<Read>;
  intervalMs: number;
  settleMs: number;
  reinstalls: number;
  overallMs: number;
  /** The first pause after a read that did not match; pauses double from it, as a job's polling does. */
  firstPauseMs: number;
  /** Installs the package again; absent where the install can't be asked for again. */
  reinstall?(pass: number): Promise<void>;
  sleep(ms: number): Promise<void>;
  now?(): number;
  /** Told before each pause. */
  onPause?(what: string): void;
  /** For messages: `timeouts.verify of prod`. */
  overallName: string;
}

export interface StableVerdict {
  verdict: Verdict;
  /** Installs the verification saw: 1, or 1 + the re-installs it asked for. */
  passes: number;
  /** Parts that still differed at the end of each pass before the last. */
  reinstalledFor: string[][];
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

export async function verifyStable(options: StableReadOptions): Promise<StableVerdict> {
  const now = options.now ?? Date.now;
  const started = now();
  const reinstalledFor: string[][] = [];
  const pause = async (ms: number, what: string) => {
    options.onPause?.(what);
    await options.sleep(ms);
    // A wait asked for is not retry time: a passing fault late in a long wait may still be retried.
    currentRetryBudget()?.extend(ms);
  };
  for (let pass = 1; ; pass++) {
    const passStarted = now();
    let previous: (Read & { at: number }) | undefined;
    let backoff = options.firstPauseMs;
    let last: Read = { differing: [], state: "" };
    // A part that first matches as settle ends is given its confirming read, once.
    let grace = true;
    for (;;) {
      last = await options.read();
      const matches = last.differing.length === 0;
      if (matches && previous && previous.differing.length === 0 && previous.state === last.state)
        return {
          verdict: pass === 1 ? "converged" : "converged after re-install",
          passes: pass,
          reinstalledFor,
        };
      const at = now();
      if (at - started >= options.overallMs)
        throw new ApplyError(
          "EGP_VERIFY_FAILED",
          `after the install, these objects still differ from the source: ${describe(last)} (checked for ${Math.round((at - started) / 1000)} s, ${options.overallName})`,
        );
      if (at - passStarted >= options.settleMs) {
        if (!(matches && grace)) break;
        grace = false;
      }
      previous = { ...last, at };
      // A match is confirmed by a read one interval later; a difference is re-read with growing pauses.
      const wanted = matches ? options.intervalMs : backoff;
      if (!matches) backoff = nextPauseMs(backoff, at - passStarted);
      const room = Math.min(
        Math.max(options.settleMs - (at - passStarted), matches ? options.intervalMs : 0),
        options.overallMs - (at - started),
      );
      await pause(
        Math.max(0, Math.min(wanted, room)),
        matches
          ? "a second equal read of the installed objects"
          : "the installed objects to match the source",
      );
    }
    if (pass > options.reinstalls || !options.reinstall)
      throw new ApplyError(
        "EGP_INSTALL_DIVERGED",
        `after ${pass === 1 ? "the install" : `${pass} installs`}, each read for ${seconds(options.settleMs)}, these objects did not converge: ${describe(last)}; nothing is recorded as verified and the snapshot taken before the first install stays the rollback point`,
        { passes: pass },
      );
    reinstalledFor.push(last.differing);
    await options.reinstall(pass + 1);
  }
}

function describe(read: Read): string {
  return read.differing.length > 0
    ? read.differing.join(", ")
    : "they matched, then read differently one interval later";
}

import { Deadlines } from "./deadlines.ts";

/*
 * No silent waits: while a call waits for its answer, or a caller waits for a job, `onWait` hears
 * about it every `intervalMs`, with what is awaited and for how long so far; less often as a long
 * wait goes on (a job of an hour), so that its notices don't bury the rest of the output.
 */

/** The time from a notice `elapsedMs` into a wait to the next: every interval, then 3 and 6 of them. */
export function noticeGapMs(elapsedMs: number, intervalMs: number): number {
  if (elapsedMs < 12 * intervalMs) return intervalMs;
  if (elapsedMs < 60 * intervalMs) return 3 * intervalMs;
  return 6 * intervalMs;
}

export interface WaitInfo {
  /** What is awaited: `POST /platformapi/core/system/user`, `the install job`… */
  what: string;
  /** Whole seconds waited so far. */
  seconds: number;
  ms: number;
}

export type OnWait = (info: WaitInfo) => void;

/** Ends a wait's notices; calling it again does nothing. */
export type EndWait = () => void;

export class Waits {
  private readonly onWait: OnWait | undefined;
  private readonly intervalMs: number;
  // Every call is a wait, and most end long before their first notice: one timer serves them all.
  // It does not keep the process alive: the wait itself (a socket, a sleep) does.
  private readonly timers = new Deadlines({ unref: true });

  constructor(onWait: OnWait | undefined, intervalMs: number) {
    this.onWait = onWait;
    this.intervalMs = intervalMs;
  }

  /** `what` may be given as a function, called at the first notice (most waits end before one). */
  start(what: string | (() => string)): EndWait {
    const notify = this.onWait;
    if (!notify) return () => undefined;
    const started = performance.now();
    let named: string | undefined = typeof what === "string" ? what : undefined;
    const tick = () => {
      const ms = performance.now() - started;
      clear = this.timers.add(Date.now() + noticeGapMs(ms, this.intervalMs), tick);
      try {
        named ??= (what as () => string)();
        notify({ what: named, seconds: Math.round(ms / 1000), ms: Math.round(ms) });
      } catch {
        // A failing listener must not fail the wait it hears about.
      }
    };
    let clear = this.timers.add(Date.now() + this.intervalMs, tick);
    return () => clear();
  }
}

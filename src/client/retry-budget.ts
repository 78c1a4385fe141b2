import { AsyncLocalStorage } from "node:async_hooks";

/*
 * A retry budget shared by the layers that retry: the client's retries of one call and a caller's
 * retries of a whole step draw from the same tries and the same time, so that they add up instead
 * of multiplying (8 step tries × 5 client tries made 40 downloads of a cut package). The budget is
 * carried by AsyncLocalStorage, so that every call made inside `withRetryBudget` sees it without
 * each resource method taking an option.
 */

export class RetryBudget {
  /** Retries allowed in all, after the first try of each call. */
  readonly tries: number;
  private end: number;
  private used = 0;

  constructor(init: { tries: number; ms: number }, now: number = Date.now()) {
    this.tries = init.tries;
    this.end = now + init.ms;
  }

  /** No retry starts after this time (ms since the epoch). */
  get until(): number {
    return this.end;
  }

  /** Retries taken so far. */
  get spent(): number {
    return this.used;
  }

  /** Moves the end later by `ms`: time its caller spent waiting on purpose (a job being polled). */
  extend(ms: number): void {
    this.end += ms;
  }

  /** Takes one retry that would start after `delayMs`; false, taking nothing, when none is left or the time would be up. */
  take(delayMs = 0, now: number = Date.now()): boolean {
    if (this.used >= this.tries || now + delayMs > this.until) return false;
    this.used += 1;
    return true;
  }
}

const active = new AsyncLocalStorage<RetryBudget>();

/** Runs `run` with `budget` as the retry budget of every client call it makes. */
export function withRetryBudget<T>(budget: RetryBudget, run: () => Promise<T>): Promise<T> {
  return active.run(budget, run);
}

/** The budget of the calls being made now, if any. */
export function currentRetryBudget(): RetryBudget | undefined {
  return active.getStore();
}

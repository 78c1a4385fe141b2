/*
 * Deadlines of many short-lived things (the tries in flight, the waits' next notices) on one timer:
 * a client sends thousands of short reads, and a timer of their own each (armed, then cleared a few
 * ms later) cost more than the reads' bookkeeping. The timer is armed for the earliest deadline;
 * when it fires, everything past its deadline expires and the timer is armed again for the earliest
 * left. It is cleared when nothing is left, so that it never keeps the process alive on its own.
 */

interface Entry {
  at: number;
  expire: () => void;
}

/** Ends a try's deadline (its answer came, or it failed); calling it again does nothing. */
export type ClearDeadline = () => void;

export class Deadlines {
  private readonly now: () => number;
  private readonly unref: boolean;
  private readonly entries = new Set<Entry>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When the armed timer fires. */
  private armedAt = Number.POSITIVE_INFINITY;

  /** `unref`: the timer does not keep the process alive (notices, as opposed to the deadlines of requests). */
  constructor(options: { now?: () => number; unref?: boolean } = {}) {
    this.now = options.now ?? Date.now;
    this.unref = options.unref ?? false;
  }

  /** Calls `expire` once `at` (ms since the epoch) has passed, unless the returned function is called first. */
  add(at: number, expire: () => void): ClearDeadline {
    const entry: Entry = { at, expire };
    this.entries.add(entry);
    if (at < this.armedAt) this.arm(at);
    return () => {
      if (!this.entries.delete(entry)) return;
      if (this.entries.size === 0) this.disarm();
    };
  }

  private arm(at: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.armedAt = at;
    this.timer = setTimeout(() => this.fire(), Math.max(1, at - this.now()));
    if (this.unref) this.timer.unref();
  }

  private disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedAt = Number.POSITIVE_INFINITY;
  }

  private fire(): void {
    this.timer = undefined;
    this.armedAt = Number.POSITIVE_INFINITY;
    const now = this.now();
    let next = Number.POSITIVE_INFINITY;
    const expired: Entry[] = [];
    for (const entry of this.entries) {
      if (entry.at <= now) expired.push(entry);
      else if (entry.at < next) next = entry.at;
    }
    for (const entry of expired) this.entries.delete(entry);
    if (next !== Number.POSITIVE_INFINITY) this.arm(next);
    for (const entry of expired) entry.expire();
  }
}

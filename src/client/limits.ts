/*
 * Client-side limits, so that egp never hammers an instance (LESSONS 7): a semaphore bounds the
 * requests in flight, and a rate limiter spaces requests out. No dependencies.
 */

export type Sleep = (ms: number) => Promise<void>;

export const realSleep: Sleep = (ms) =>
  ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));

/** At most `size` holders at a time; waiters are served in arrival order. */
export class Semaphore {
  private readonly size: number;
  private active = 0;
  // A queue read from `head`: shift() on a long array (a plan queues a thousand reads) is slow.
  private waiting: Array<() => void> = [];
  private head = 0;

  constructor(size: number) {
    this.size = Math.max(1, size);
  }

  get inFlight(): number {
    return this.active;
  }

  async acquire(): Promise<() => void> {
    if (this.active >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active += 1;
    return this.releaser();
  }

  /** A slot at once when one is free (then nobody waits), without a promise; undefined otherwise. */
  tryAcquire(): (() => void) | undefined {
    if (this.active >= this.size) return undefined;
    this.active += 1;
    return this.releaser();
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release();
    };
  }

  private release(): void {
    const next = this.next();
    // The slot passes straight to the next waiter, so `active` stays the same.
    if (next) next();
    else this.active -= 1;
  }

  private next(): (() => void) | undefined {
    if (this.head === this.waiting.length) return undefined;
    const next = this.waiting[this.head];
    this.head += 1;
    // The served part is dropped once it is half the queue, so a queue that never empties stays bounded.
    if (this.head * 2 >= this.waiting.length) {
      this.waiting = this.waiting.slice(this.head);
      this.head = 0;
    }
    return next;
  }
}

/**
 * Spaces requests `1000 / perSecond` ms apart (GCRA with a burst of one): the n-th concurrent
 * caller waits n intervals. Reservations are taken synchronously, so concurrent callers never race.
 * `perSecond` 0 means no limit.
 */
export class RateLimiter {
  private readonly interval: number;
  private readonly now: () => number;
  private readonly sleep: Sleep;
  private theoretical = Number.NEGATIVE_INFINITY;

  constructor(perSecond: number, now: () => number = Date.now, sleep: Sleep = realSleep) {
    this.interval = perSecond > 0 ? 1000 / perSecond : 0;
    this.now = now;
    this.sleep = sleep;
  }

  /** Reserves the next slot and returns how long the caller must wait for it. */
  reserve(): number {
    if (this.interval === 0) return 0;
    const now = this.now();
    const at = Math.max(this.theoretical, now);
    this.theoretical = at + this.interval;
    return at - now;
  }

  /** Waits for the next slot; undefined (nothing to wait for) when the slot is now. */
  acquire(): Promise<void> | undefined {
    const wait = this.reserve();
    return wait > 0 ? this.sleep(wait) : undefined;
  }
}

/*
 * File reads and writes of a package transfer run on the main thread while they are fast, and move
 * to libuv's thread pool for the rest of the transfer once they are slow.
 *
 * Why: a transfer moves the bytes between a socket and the page cache. Done on the thread that has
 * just received (or is about to send) them, each copy hits that CPU's cache; handed to the thread
 * pool, each chunk costs a wake-up, two context switches and a copy from another core's cache
 * (more CPU than the copy itself). A write to the page cache or a read of
 * a cached file takes tens of microseconds per chunk, so the event loop barely notices. A slow disk, a network file system or
 * write-back throttling can make them take milliseconds: once `strikes` operations have taken
 * `slowMs` or more, the rest of the transfer goes to the thread pool, so the event loop is not held
 * up again. (One slow operation is not enough: on a busy machine the thread can be descheduled in
 * the middle of a fast one.)
 */

export const SLOW_IO_MS = 20;
export const SLOW_IO_STRIKES = 3;

export interface InlineIoOptions {
  /** An operation that takes this long counts as slow; default 20 ms. */
  slowMs?: number;
  /** Slow operations after which the rest go to the thread pool; default 3. */
  strikes?: number;
}

export class InlineIo {
  private readonly slowMs: number;
  private strikesLeft: number;
  /** Operations run on the main thread and in the thread pool, for tests and diagnostics. */
  readonly counts = { inline: 0, pooled: 0 };

  constructor(options: InlineIoOptions = {}) {
    this.slowMs = options.slowMs ?? SLOW_IO_MS;
    this.strikesLeft = options.strikes ?? SLOW_IO_STRIKES;
  }

  /** True once the operations have been slow often enough to leave the main thread. */
  get pooled(): boolean {
    return this.strikesLeft <= 0;
  }

  /** Runs `inline` on the main thread while operations are fast, else awaits `pooled`. */
  async run<T>(inline: () => T, pooled: () => Promise<T>): Promise<T> {
    return this.pooled ? this.inPool(pooled) : this.inline(inline);
  }

  /** Runs a synchronous operation now, on the main thread, and counts it if it was slow. */
  inline<T>(operation: () => T): T {
    this.counts.inline++;
    const started = performance.now();
    try {
      return operation();
    } finally {
      if (performance.now() - started >= this.slowMs) this.strikesLeft--;
    }
  }

  /** Starts an operation in the thread pool. */
  inPool<T>(operation: () => Promise<T>): Promise<T> {
    this.counts.pooled++;
    return operation();
  }
}

import { releaseAll } from "../io/file-sink.ts";
import { TransferError } from "./errors.ts";
import type { Chunks } from "./file-source.ts";

/*
 * The bytes of a pipelined promotion on their way from the download to the upload: the download
 * pushes each chunk once it is on disk, the upload's body iterates over them.
 * - Bounded: once `limitBytes` wait, `push` returns a promise that settles when the upload has
 *   taken enough; the download's socket waits meanwhile (back-pressure from the slower side).
 * - An upload that stops (fails, or is never sent) abandons the pipe: later pushes are dropped, so
 *   the download goes on alone and the caller uploads from the file afterwards.
 * - It can be read once: a retry of the upload cannot get the bytes again.
 * - Memory: a chunk is freed (file-sink.ts releaseAll) once the upload has taken 1 MiB more after
 *   it, when both sides allow it: the producer owns the chunk (a download through the client's own
 *   Agent) and the consumer takes the next chunk only once the socket has taken the previous one
 *   (an upload through the client's own Agent, file-source.ts). The margin covers what the socket
 *   may still buffer (a write under its 16 KiB high-water mark is buffered without a wait) and the
 *   download's parser, paused on a chunk, which keeps the rest of that chunk's buffer until it
 *   resumes.
 */

const DEFAULT_LIMIT = 4 * 1024 * 1024;
/** Bytes taken by the upload after a chunk before that chunk is freed. */
const RELEASE_MARGIN = 1024 * 1024;

export class ChunkPipe {
  /** The upload's length, from the download's Content-Length; undefined without one (chunked). */
  readonly size: number | undefined;
  /** Set by the producer: its chunks are its own to free. */
  producerOwns = false;
  private readonly limit: number;
  private queue: Buffer[] = [];
  private queued = 0;
  private ended = false;
  private failure: Error | undefined;
  private abandoned = false;
  private opened = false;
  private wake: (() => void) | undefined;
  private room: (() => void) | undefined;

  constructor(size: number | undefined, limitBytes = DEFAULT_LIMIT) {
    this.size = size;
    this.limit = limitBytes;
  }

  /** False once the upload stopped or the download ended: a chunk pushed then is dropped. */
  get accepting(): boolean {
    return !(this.abandoned || this.ended || this.failure);
  }

  /**
   * Hands a chunk on (the pipe owns it from then on); a promise when the pipe is full, settled
   * once there is room again.
   */
  push(chunk: Buffer): undefined | Promise<void> {
    if (!this.accepting || chunk.byteLength === 0) return undefined;
    this.queue.push(chunk);
    this.queued += chunk.byteLength;
    this.notify();
    if (this.queued < this.limit) return undefined;
    return new Promise<void>((resolve) => {
      this.room = resolve;
    });
  }

  /** The download is complete. */
  end(): void {
    this.ended = true;
    this.notify();
  }

  /** The download failed: the upload fails with it. */
  fail(cause: unknown): void {
    this.failure ??= new TransferError(
      `the download feeding this upload stopped: ${(cause as Error)?.message ?? cause}`,
      cause,
    );
    this.notify();
    this.freeRoom();
  }

  /** The upload stopped: later chunks are dropped and the producer never waits again. */
  abandon(): void {
    this.abandoned = true;
    this.queue = [];
    this.queued = 0;
    this.freeRoom();
    this.notify();
  }

  /** The upload's body; `safeToFree`: the consumer takes a chunk only once the socket took the last. */
  async *chunks(safeToFree: boolean): Chunks {
    if (this.opened) throw new TransferError("a pipelined upload cannot be sent twice: its bytes are gone");
    this.opened = true;
    const release = safeToFree && this.producerOwns;
    const handed: Buffer[] = [];
    let handedBytes = 0;
    try {
      for (;;) {
        const chunk = this.queue.shift();
        if (chunk) {
          this.queued -= chunk.byteLength;
          if (this.queued < this.limit) this.freeRoom();
          if (release) {
            handed.push(chunk);
            handedBytes += chunk.byteLength;
            while (handedBytes - (handed[0] as Buffer).byteLength >= RELEASE_MARGIN) {
              const old = handed.shift() as Buffer;
              handedBytes -= old.byteLength;
              releaseAll([old]);
            }
          }
          yield chunk;
          continue;
        }
        if (this.failure) throw this.failure;
        if (this.ended) return;
        // Abandoned from outside once the upload has settled: nobody reads any more.
        if (this.abandoned) return;
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
      }
    } finally {
      this.abandon();
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private freeRoom(): void {
    const room = this.room;
    this.room = undefined;
    room?.();
  }
}

import { BufferRuns, releaseAll } from "../io/file-sink.ts";
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
 * - Without a size (a download without a length, sent on chunked), chunks are joined into frames
 *   of about 256 KiB: a chunked download arrives in pieces (its framing cuts the socket reads,
 *   some pieces are a few bytes), and each piece would otherwise be a frame of the upload of its
 *   own, which the receiving side pays for per frame. The copy costs less than the frames.
 * - Memory: a chunk's socket buffer is freed (file-sink.ts BufferRuns) once the upload has taken
 *   1 MiB more after it, when both sides allow it: the producer owns the chunk (a download through
 *   the client's own Agent) and the consumer takes the next chunk only once the socket has taken
 *   the previous one (an upload through the client's own Agent, file-source.ts). The margin covers
 *   what the socket may still buffer (a write under its 16 KiB high-water mark is buffered without
 *   a wait) and the download's parser, paused on a chunk, which keeps the rest of that chunk's
 *   buffer until it resumes. A chunk joined into another is done with once copied; a joined chunk
 *   is the pipe's own, freed after the margin whoever the producer is.
 */

const DEFAULT_LIMIT = 4 * 1024 * 1024;
/** Bytes taken by the upload after a chunk before that chunk is freed. */
const RELEASE_MARGIN = 1024 * 1024;
/** Bytes joined into one chunk (one frame) of an upload without a size. */
const FRAME_BYTES = 256 * 1024;

/** A chunk handed on, done with once the upload has taken `doneAt` bytes. */
interface Handed {
  chunk: Buffer;
  doneAt: number;
}

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
    // The producer's chunks, in order, each done with once copied or once the socket is past it.
    const runs = safeToFree && this.producerOwns ? new BufferRuns() : undefined;
    const pieces: Handed[] = [];
    // Joined chunks, the pipe's own.
    const joined: Handed[] = [];
    let taken = 0;
    try {
      for (;;) {
        const parts = this.ready() ? this.take() : [];
        if (parts.length > 0) {
          const whole = parts.length === 1;
          const chunk = whole ? (parts[0] as Buffer) : Buffer.concat(parts);
          taken += chunk.byteLength;
          if (runs) {
            // Sent as it is, a chunk is done with once the socket is past it; joined, once copied.
            if (whole) pieces.push({ chunk, doneAt: taken + RELEASE_MARGIN });
            else for (const part of parts) pieces.push({ chunk: part, doneAt: 0 });
          }
          if (!whole && safeToFree) joined.push({ chunk, doneAt: taken + RELEASE_MARGIN });
          while (runs && pieces.length > 0 && (pieces[0] as Handed).doneAt <= taken)
            runs.done((pieces.shift() as Handed).chunk);
          while (joined.length > 0 && (joined[0] as Handed).doneAt <= taken)
            releaseAll([(joined.shift() as Handed).chunk]);
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

  /** Whether a chunk can be taken: without a size, once a frame's worth waits or no more comes. */
  private ready(): boolean {
    if (this.queue.length === 0) return false;
    if (this.size !== undefined || this.ended || this.failure || this.abandoned) return true;
    // Never more than the pipe holds: the producer waits once it is full.
    return this.queued >= Math.min(FRAME_BYTES, this.limit);
  }

  /** The next chunk, or without a size the chunks waiting, up to a frame's worth. */
  private take(): Buffer[] {
    const parts: Buffer[] = [];
    let bytes = 0;
    while (
      this.queue.length > 0 &&
      (parts.length === 0 || (this.size === undefined && bytes < FRAME_BYTES))
    ) {
      const chunk = this.queue.shift() as Buffer;
      parts.push(chunk);
      bytes += chunk.byteLength;
    }
    this.queued -= bytes;
    if (this.queued < this.limit) this.freeRoom();
    return parts;
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

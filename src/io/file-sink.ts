import { hasSubscribers } from "node:diagnostics_channel";
import { writeSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { finished, type Readable } from "node:stream";
import { InlineIo, type InlineIoOptions } from "./inline-io.ts";

/*
 * Shared by the client and the emulator (which never import each other): file I/O only.
 *
 * A body (an upload's file part in the emulator) written to a file, with no stream between the
 * body and the file: the chunks the socket delivers (up to 64 KiB each) are gathered into runs of
 * up to 256 KiB, and each run is written before the next chunk is read, so at most one run plus
 * the body's own buffer is held (while a run is being written the socket waits: back-pressure).
 * - Runs are written on the main thread while writes are fast (inline-io.ts), else in the thread
 *   pool, as one writev.
 * - Writes on the main thread (here and in the client's download, file-body-sink.ts) are cut into
 *   pieces of at most 32 KiB: the kernel sizes the page-cache memory it allocates by the write, and
 *   on a virtual machine large allocations cost more and vary widely.
 * - Memory (`release`): each socket read gets a fresh buffer, which V8 frees only at its next
 *   young-generation collection, after some tens of MB of them have piled up. A chunk that is the
 *   whole of its ArrayBuffer is freed as soon as it is on disk instead (detached by
 *   `transfer(0)`). Only safe for chunks no one else holds: the emulator's upload parts, and the
 *   client's download chunks from its own undici Agent (socket buffers, which undici drops once
 *   delivered), never through an injected dispatcher (one may keep the chunks, as undici's cache
 *   interceptor does to serve them again); skipped while anyone listens on undici's body-chunk
 *   diagnostics channel (releasable()).
 */

export const BATCH_BYTES = 256 * 1024;
/** Largest write made on the main thread. */
export const INLINE_WRITE_BYTES = 32 * 1024;
/** Also bounds the buffers given to one writev (a body of tiny chunks). */
const BATCH_CHUNKS = 64;
const BODY_CHUNK_CHANNEL = "undici:request:bodyChunkReceived";

export interface FileSinkOptions {
  /** Called after each run of chunks is on disk, with the bytes written so far. */
  onWritten?: (bytes: number) => void;
  /** Free each chunk's memory once it is on disk (only for chunks no one else holds). */
  release?: boolean;
  /** Bytes gathered before a write; default 256 KiB. */
  batchBytes?: number;
  /** When writes leave the main thread (inline-io.ts). */
  io?: InlineIoOptions;
}

export interface FileSinkResult {
  bytes: number;
  /** Writes made on the main thread and in the thread pool. */
  writes: { inline: number; pooled: number };
}

/**
 * Writes `body` to a new file at `path` (truncating one that exists). The body is read in flowing
 * mode: on the main thread each run is written inside the 'data' event, with no promise or
 * microtask per chunk; a run that goes to the thread pool pauses the body until it is written.
 * On failure the body is destroyed and the file closed; the caller removes what was written.
 */
export async function writeBodyToFile(
  body: Readable,
  path: string,
  options: FileSinkOptions = {},
): Promise<FileSinkResult> {
  const batchBytes = options.batchBytes ?? BATCH_BYTES;
  const release = options.release === true && releasable();
  const io = new InlineIo(options.io);
  // Listened to from the start, and never removed: a body that fails while the file is being opened
  // (a connection reset) must not throw an unhandled 'error'.
  let failedEarly: unknown;
  body.on("error", (error: unknown) => {
    failedEarly ??= error;
  });
  let handle: FileHandle;
  try {
    // Packages are snapshots of an instance: readable by this user only.
    handle = await open(path, "w", 0o600);
  } catch (error) {
    body.destroy();
    throw error;
  }
  if (failedEarly !== undefined) {
    await handle.close();
    throw failedEarly;
  }
  let written = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      let batch: Uint8Array[] = [];
      let size = 0;
      let ended = false;
      let writing: Promise<void> | undefined;
      let settled = false;
      const settle = (error?: unknown) => {
        if (settled) return;
        settled = true;
        body.off("data", onData);
        if (error !== undefined) body.destroy();
        // The file is closed after a write under way has ended, never in the middle of it.
        const after = () => (error === undefined ? resolve() : reject(error));
        void (writing ?? Promise.resolve()).then(after, after);
      };
      const wrote = (chunks: Uint8Array[], bytes: number) => {
        if (release) releaseAll(chunks);
        written += bytes;
        options.onWritten?.(written);
      };
      const full = () => size >= batchBytes || batch.length >= BATCH_CHUNKS;
      /** Writes the run gathered so far: now, or in the thread pool with the body paused. */
      const flush = () => {
        const chunks = batch;
        const bytes = size;
        batch = [];
        size = 0;
        if (!io.pooled) {
          io.inline(() => writeAllSync(handle.fd, chunks));
          return wrote(chunks, bytes);
        }
        body.pause();
        writing = io.inPool(() => writeAll(handle, chunks, bytes));
        writing.then(
          () => {
            writing = undefined;
            if (settled) return;
            wrote(chunks, bytes);
            pump();
          },
          (error: unknown) => {
            writing = undefined;
            settle(error);
          },
        );
      };
      /** Writes what is due unless a pooled write is under way; then resumes or finishes. */
      const pump = () => {
        try {
          while (!writing && (full() || (ended && size > 0))) flush();
        } catch (error) {
          return settle(error);
        }
        if (writing) return;
        if (ended) settle();
        else if (body.isPaused()) body.resume();
      };
      const onData = (chunk: Uint8Array) => {
        if (chunk.byteLength === 0) return;
        batch.push(chunk);
        size += chunk.byteLength;
        if (!writing && full()) pump();
      };
      body.on("data", onData);
      // After the last chunk, or the body's error (a connection cut short included). The listeners
      // stay: an error the body emits later must not go unhandled.
      finished(body, (error) => {
        if (error) return settle(error);
        ended = true;
        if (!writing) pump();
      });
    });
  } finally {
    await handle.close();
  }
  return { bytes: written, writes: { ...io.counts } };
}

/** writev until every byte is written (a file may take fewer bytes than asked). */
export async function writeAll(
  handle: Pick<FileHandle, "writev">,
  chunks: Uint8Array[],
  size: number,
): Promise<void> {
  let rest = chunks;
  let left = size;
  while (left > 0) {
    const { bytesWritten } = await handle.writev(rest);
    left = afterWrite(left, bytesWritten);
    if (left > 0) rest = dropFront(rest, bytesWritten);
  }
}

/** Writes the chunks in pieces of at most `INLINE_WRITE_BYTES`, each until it is all written. */
export function writeAllSync(fd: number, chunks: Uint8Array[]): void {
  for (const chunk of chunks) {
    for (let at = 0; at < chunk.byteLength; ) {
      const length = Math.min(INLINE_WRITE_BYTES, chunk.byteLength - at);
      at += length - afterWrite(length, writeSync(fd, chunk, at, length));
    }
  }
}

/** The bytes still to write after a write took `bytesWritten` of `left`. */
export function afterWrite(left: number, bytesWritten: number): number {
  if (bytesWritten <= 0) throw new Error(`the file took no bytes (${left} left to write)`);
  return left - bytesWritten;
}

/** The chunks without their first `count` bytes. */
export function dropFront(chunks: Uint8Array[], count: number): Uint8Array[] {
  let skip = count;
  let index = 0;
  while (index < chunks.length && skip >= (chunks[index] as Uint8Array).byteLength) {
    skip -= (chunks[index] as Uint8Array).byteLength;
    index++;
  }
  const rest = chunks.slice(index);
  if (skip > 0 && rest.length > 0) rest[0] = (rest[0] as Uint8Array).subarray(skip);
  return rest;
}

/** False while anyone listens on undici's body chunks (a listener may keep them). */
export function releasable(): boolean {
  return !hasSubscribers(BODY_CHUNK_CHANNEL);
}

/**
 * Detaches each chunk's ArrayBuffer when the chunk is all of it, which frees its memory now. Never
 * an empty one: an empty chunk may be a view of a shared empty buffer (undici's parser hands one
 * over after a resume, and copies from that same buffer again later).
 */
export function releaseAll(chunks: Uint8Array[]): void {
  for (const chunk of chunks) {
    const buffer = chunk.buffer;
    if (
      chunk.byteLength > 0 &&
      buffer instanceof ArrayBuffer &&
      !buffer.detached &&
      chunk.byteOffset === 0 &&
      chunk.byteLength === buffer.byteLength
    ) {
      buffer.transfer(0);
    }
  }
}

/** Bytes of a socket buffer at either end that may be chunked framing rather than body. */
const FRAMING_BYTES = 64;

/**
 * Frees the socket buffers behind a body's chunks, told of each chunk once nothing uses it any
 * more, in the body's order. A chunk is a view of one socket read: all of it (a body with a
 * length), or one of several pieces of it (a chunked body, whose framing cuts a read into pieces),
 * so a buffer is freed by the run of chunks that share it, once a chunk of another buffer follows
 * (the parser has left it). Only a run that spans its buffer, framing aside, is freed: never a
 * buffer that also holds other data (the answer's head, or other allocations in Buffer's pool,
 * which holds only allocations under half its size).
 */
export class BufferRuns {
  private current: ArrayBuffer | undefined;
  private start = 0;
  private end = 0;
  /** The current buffer also backs a chunk handed elsewhere. */
  private kept = false;

  done(chunk: Uint8Array): void {
    if (chunk.byteLength === 0) return;
    if (chunk.buffer !== this.current) this.begin(chunk);
    this.end = chunk.byteOffset + chunk.byteLength;
  }

  /** A chunk handed to someone else, in the body's order: its buffer is never freed here. */
  keep(chunk: Uint8Array): void {
    if (chunk.byteLength === 0) return;
    if (chunk.buffer !== this.current) this.begin(chunk);
    this.kept = true;
  }

  /** The body has ended, and the parser with it: the last run is freed too. */
  finish(): void {
    this.release();
    this.current = undefined;
  }

  private begin(chunk: Uint8Array): void {
    this.release();
    this.current = chunk.buffer instanceof ArrayBuffer ? chunk.buffer : undefined;
    this.start = chunk.byteOffset;
    this.kept = false;
  }

  private release(): void {
    const buffer = this.current;
    if (!buffer || buffer.detached || this.kept) return;
    if (this.start > FRAMING_BYTES || buffer.byteLength - this.end > FRAMING_BYTES) return;
    buffer.transfer(0);
  }
}

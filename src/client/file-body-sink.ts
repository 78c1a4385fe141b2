import { createHash, type Hash } from "node:crypto";
import { closeSync, openSync, write } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { afterWrite, BufferRuns, type FileSinkOptions, releasable } from "../io/file-sink.ts";
import type { ChunkPipe } from "./chunk-pipe.ts";
import type { BodySink } from "./transport.ts";

export interface FileBodySinkOptions extends Pick<FileSinkOptions, "onWritten" | "release"> {
  /**
   * Called when a try's body starts, with the size its answer announced: a pipe returned gets each
   * chunk once it is on disk (a pipelined promotion), and owns the chunk's release from then on.
   */
  tee?: (total: number | undefined) => ChunkPipe | undefined;
  /** Most bytes a try may write: an answer that announces more, or sends more, is refused. */
  maxBytes?: number;
  /** The error a try past `maxBytes` fails with, given the bytes it announced or reached. */
  tooLarge?: (bytes: number) => Error;
}

/**
 * A package download's sink (transport getInto): a successful answer that is not JSON is written
 * to `path`, which every try opens anew (truncated). Each chunk is written as it arrives, in the
 * thread pool while the socket waits (a thread switch to the main thread while writes are fast
 * saved no measurable wall time of a promotion, docs/performance.md). With `release`, each socket buffer is freed once its chunks are on disk and
 * the parser has left it (file-sink.ts BufferRuns). `close()` closes the file; the caller renames
 * or removes it. With `tee`, each chunk also goes to a pipe once written, and waits while the pipe
 * is full. Each chunk is hashed as it is written: the file's sha256 without reading it back.
 */
export class FileBodySink implements BodySink {
  /** Bytes written by the current try, and the size its answer announced. */
  written = 0;
  total: number | undefined;
  private fd: number | undefined;
  private readonly path: string;
  private readonly options: FileBodySinkOptions;
  private readonly release: boolean;
  /** The socket buffers of the chunks written, each freed once the parser has left it (or at close). */
  private runs = new BufferRuns();
  /** The current try's pipe, when the body is teed. */
  pipe: ChunkPipe | undefined;
  /** The current try's bytes, hashed as they are written (the artifact cache keeps files by it). */
  private hash: Hash = createHash("sha256");

  constructor(path: string, options: FileBodySinkOptions = {}) {
    this.path = path;
    this.options = options;
    this.release = options.release === true && releasable();
  }

  onHead(status: number, headers: IncomingHttpHeaders): boolean {
    if (status < 200 || status >= 300) return false;
    if (/json/i.test(String(headers["content-type"] ?? ""))) return false;
    this.close();
    this.fd = openSync(this.path, "w", 0o600);
    this.written = 0;
    this.hash = createHash("sha256");
    this.runs = new BufferRuns();
    const length = Number(headers["content-length"]);
    this.total = Number.isFinite(length) ? length : undefined;
    // Refused before a byte is written: the file is empty, and the caller removes it.
    if (this.total !== undefined) this.bound(this.total);
    // A try that starts again ends the previous try's pipe (its upload fails with it).
    this.pipe?.fail(new Error("the download started again"));
    this.pipe = this.options.tee?.(this.total);
    if (this.pipe) this.pipe.producerOwns = this.release;
    return true;
  }

  onData(chunk: Buffer): undefined | Promise<void> {
    this.bound(this.written + chunk.byteLength);
    const fd = this.fd as number;
    return writeFdAll(fd, chunk).then(() => this.wrote(chunk));
  }

  /** Throws when `bytes` would pass `maxBytes`: a body that never ends never fills the disk. */
  private bound(bytes: number): void {
    const { maxBytes, tooLarge } = this.options;
    if (maxBytes === undefined || bytes <= maxBytes) return;
    throw tooLarge?.(bytes) ?? new RangeError(`the answer is larger than ${maxBytes} bytes`);
  }

  close(): void {
    if (this.release) this.runs.finish();
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    closeSync(fd);
  }

  /** The sha256 of the bytes the current try wrote (once its body has ended). */
  sha256(): string {
    return this.hash.digest("hex");
  }

  private wrote(chunk: Buffer): undefined | Promise<void> {
    // Before the chunk is handed on: the pipe or `release` may free it.
    this.hash.update(chunk);
    this.written += chunk.byteLength;
    this.options.onWritten?.(this.written);
    if (this.pipe?.accepting) {
      // Once the pipe stops taking chunks, the buffer of its last ones is left to it.
      if (this.release) this.runs.keep(chunk);
      return this.pipe.push(chunk);
    }
    // A run late: undici's parser, paused on a chunk while it was written in the pool, keeps the
    // rest of that chunk's buffer until it resumes, which it has once a chunk of another arrives.
    if (this.release) this.runs.done(chunk);
    return undefined;
  }
}

/** Writes all of `bytes` at the file's position, in the thread pool. */
async function writeFdAll(fd: number, bytes: Buffer): Promise<void> {
  for (let at = 0; at < bytes.length; ) {
    const bytesWritten = await new Promise<number>((resolve, reject) => {
      write(fd, bytes, at, bytes.length - at, null, (error, count) =>
        error ? reject(error) : resolve(count),
      );
    });
    afterWrite(bytes.length - at, bytesWritten);
    at += bytesWritten;
  }
}

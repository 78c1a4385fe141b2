import { closeSync, openSync, write } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { afterWrite, type FileSinkOptions, releasable, releaseAll, writeAllSync } from "../io/file-sink.ts";
import { InlineIo } from "../io/inline-io.ts";
import type { BodySink } from "./transport.ts";

/**
 * A package download's sink (transport getInto): a successful answer that is not JSON is written
 * to `path`, which every try opens anew (truncated). Each chunk is written as it arrives, on the
 * main thread while writes are fast; once they are slow (inline-io.ts), in the thread pool while
 * the socket waits. With `release`, a chunk that is a whole socket buffer is freed once it is on
 * disk (file-sink.ts). `close()` closes the file; the caller renames or removes it.
 */
export class FileBodySink implements BodySink {
  /** Bytes written by the current try, and the size its answer announced. */
  written = 0;
  total: number | undefined;
  private fd: number | undefined;
  private io: InlineIo;
  private readonly path: string;
  private readonly options: Pick<FileSinkOptions, "onWritten" | "io">;
  private readonly release: boolean;

  constructor(path: string, options: Pick<FileSinkOptions, "onWritten" | "io" | "release"> = {}) {
    this.path = path;
    this.options = options;
    this.io = new InlineIo(options.io);
    this.release = options.release === true && releasable();
  }

  onHead(status: number, headers: IncomingHttpHeaders): boolean {
    if (status < 200 || status >= 300) return false;
    if (/json/i.test(String(headers["content-type"] ?? ""))) return false;
    this.close();
    this.fd = openSync(this.path, "w");
    this.written = 0;
    this.io = new InlineIo(this.options.io);
    const length = Number(headers["content-length"]);
    this.total = Number.isFinite(length) ? length : undefined;
    return true;
  }

  onData(chunk: Buffer): undefined | Promise<void> {
    const fd = this.fd as number;
    if (!this.io.pooled) {
      this.io.inline(() => writeAllSync(fd, [chunk]));
      this.wrote(chunk);
      return undefined;
    }
    return this.io.inPool(() => writeFdAll(fd, chunk)).then(() => this.wrote(chunk));
  }

  /** Writes made on the main thread and in the thread pool by the current try. */
  get writes(): { inline: number; pooled: number } {
    return { ...this.io.counts };
  }

  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    closeSync(fd);
  }

  private wrote(chunk: Buffer): void {
    this.written += chunk.byteLength;
    if (this.release) releaseAll([chunk]);
    this.options.onWritten?.(this.written);
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

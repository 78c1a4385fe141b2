import { readSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { Readable } from "node:stream";
import { InlineIo } from "../io/inline-io.ts";

/*
 * A file as an HTTP response body (a package download), read into a small ring of reused buffers,
 * on the main thread while reads are fast (src/io/inline-io.ts: the thread pool after three
 * slow reads).
 *
 * Why a ring: a fresh buffer per read (`createReadStream`) is external memory to V8, and a large
 * download's worth of them makes it run a major garbage collection every few tens of MB, which
 * then takes much of the CPU.
 *
 * Why reusing a buffer is safe here: the stream's high-water mark is 0, so it reads a chunk only
 * when its consumer asks for one, and the consumer is an HTTP response the body is piped to. A
 * chunk of 256 KiB is larger than the socket's 16 KiB high-water mark, so writing it returns false
 * and the pipe asks for the next chunk only after 'drain', when the socket has handed every byte it
 * was given to the kernel. A buffer comes round again only `RING` chunks later. Not for consumers
 * that keep chunks after they have asked for the next one.
 */

const CHUNK = 256 * 1024;
const RING = 4;

export function fileBody(path: string): Readable {
  const ring = Array.from({ length: RING }, () => Buffer.allocUnsafe(CHUNK));
  const io = new InlineIo();
  let handle: FileHandle | undefined;
  let index = 0;
  return new Readable({
    highWaterMark: 0,
    construct(callback) {
      open(path, "r").then((opened) => {
        handle = opened;
        callback();
      }, callback);
    },
    read() {
      const file = handle as FileHandle;
      const buffer = ring[index++ % RING] as Buffer;
      const push = (bytesRead: number) => this.push(bytesRead === 0 ? null : buffer.subarray(0, bytesRead));
      if (!io.pooled) {
        try {
          push(io.inline(() => readSync(file.fd, buffer, 0, CHUNK, null)));
        } catch (error) {
          this.destroy(error as Error);
        }
        return;
      }
      io.inPool(() => file.read(buffer, 0, CHUNK, null)).then(
        ({ bytesRead }) => push(bytesRead),
        (error: Error) => this.destroy(error),
      );
    },
    destroy(error, callback) {
      if (!handle) return callback(error);
      handle.close().then(
        () => callback(error),
        () => callback(error),
      );
    },
  });
}

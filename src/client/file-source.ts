import { readSync, statSync } from "node:fs";
import { open as openFile } from "node:fs/promises";
import { basename } from "node:path";
import { InlineIo, type InlineIoOptions } from "../io/inline-io.ts";
import { TransferError } from "./errors.ts";
import type { OnProgress } from "./progress.ts";

/*
 * What an upload reads from: a file path (read in chunks, never whole), a Blob (for example from
 * `fs.openAsBlob`, read lazily) or bytes already in memory. Each can be opened more than once, for
 * the one retry after a re-login.
 *
 * Memory: a fresh buffer per chunk leaves tens of MB of dead buffers between two garbage
 * collections during a large upload. With `reuse`, a file is read into a small ring of buffers instead. That is
 * safe because undici, sending an async iterable body, pulls the next chunk only once the socket
 * has taken the previous one (a chunk larger than the socket's 16 KiB high-water mark makes undici
 * wait for 'drain'); the ring leaves a margin on top. Only the client's own undici Agent gives that
 * guarantee, so an injected dispatcher gets fresh buffers.
 *
 * A file is read in chunks of 256 KiB (a quarter of the trips of 64 KiB ones, for the reads and the
 * socket writes), on the main thread while reads are fast (inline-io.ts: the bytes are then in
 * this CPU's cache when the socket write copies them).
 */
export type UploadSource = string | Blob | Uint8Array | StreamedUpload;

/**
 * Bytes that arrive while the upload runs (a download teed into it: ChunkPipe), readable once.
 * `safeToFree` tells the source that its consumer takes a chunk only once the socket took the
 * previous one (the client's own Agent), so that a chunk may be freed soon after.
 */
export interface StreamedUpload {
  size: number;
  chunks(safeToFree: boolean): Chunks;
}

export type Chunks = AsyncIterable<Buffer>;

export interface FileSource {
  fileName: string;
  size: number;
  open(): Chunks;
}

const CHUNK = 256 * 1024;
const RING = 4;

export function fileSourceOf(
  source: UploadSource,
  fileName: string | undefined,
  onProgress?: OnProgress,
  reuse = false,
  io: InlineIoOptions = {},
): FileSource {
  const counted = (size: number, name: string, open: () => Chunks): FileSource => ({
    fileName: name,
    size,
    open: () => withProgress(open(), size, onProgress),
  });
  if (typeof source === "string") {
    return counted(sizeOf(source), fileName ?? basename(source), () => readFileChunks(source, reuse, io));
  }
  const name = fileName ?? "upload.bin";
  if (source instanceof Blob) return counted(source.size, name, () => blobChunks(source));
  if (source instanceof Uint8Array) return counted(source.byteLength, name, () => once(Buffer.from(source)));
  if (typeof source === "object" && source !== null && "chunks" in source)
    return counted(source.size, name, () => source.chunks(reuse));
  throw new TransferError("an upload reads from a file path, a Blob, a Uint8Array or a StreamedUpload");
}

async function* readFileChunks(path: string, reuse: boolean, options: InlineIoOptions): Chunks {
  const handle = await openFile(path, "r").catch((error: Error) => {
    throw new TransferError(`cannot upload ${path}: ${error.message}`, error);
  });
  const ring = reuse ? Array.from({ length: RING }, () => Buffer.allocUnsafe(CHUNK)) : [];
  const io = new InlineIo(options);
  try {
    for (let index = 0; ; index++) {
      const buffer = reuse ? (ring[index % RING] as Buffer) : Buffer.allocUnsafe(CHUNK);
      const bytesRead = await io.run(
        () => readSync(handle.fd, buffer, 0, CHUNK, null),
        async () => (await handle.read(buffer, 0, CHUNK, null)).bytesRead,
      );
      if (bytesRead === 0) return;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}

async function* blobChunks(blob: Blob): Chunks {
  for await (const chunk of blob.stream())
    yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

async function* once(bytes: Buffer): Chunks {
  yield bytes;
}

async function* withProgress(chunks: Chunks, total: number, onProgress?: OnProgress): Chunks {
  let bytes = 0;
  for await (const chunk of chunks) {
    bytes += chunk.length;
    yield chunk;
    // Reported once the consumer has taken the chunk.
    onProgress?.({ bytes, total });
  }
}

function sizeOf(path: string): number {
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new Error("not a regular file");
    return stat.size;
  } catch (error) {
    throw new TransferError(`cannot upload ${path}: ${(error as Error).message}`, error);
  }
}

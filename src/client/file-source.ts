import { openAsBlob, statSync } from "node:fs";
import { basename } from "node:path";
import { TransferError } from "./errors.ts";
import type { OnProgress } from "./progress.ts";

/*
 * What an upload reads from: a file path (a file-backed Blob, `fs.openAsBlob`, read as the socket
 * takes it, never whole), a Blob, bytes already in memory, or bytes still arriving. All but the last
 * can be sent again, for the one retry after a re-login.
 */
export type UploadSource = string | Blob | Uint8Array | StreamedUpload;

/**
 * Bytes that arrive while the upload runs (a download teed into it: ChunkPipe), readable once.
 * `safeToFree` tells the source that its consumer takes a chunk only once the socket took the
 * previous one (the client's own Agent), so that a chunk may be freed soon after. Without a `size`
 * (a download without a length) the upload is sent chunked.
 */
export interface StreamedUpload {
  size: number | undefined;
  chunks(safeToFree: boolean): Chunks;
}

export type Chunks = AsyncIterable<Buffer>;

/**
 * An upload's file part: a Blob undici sends as it is, or chunks that can't be a Blob yet, of a
 * size known or not.
 */
export type FileSource = { fileName: string; onProgress?: OnProgress } & (
  | { blob: Blob; size: number }
  | { open(): Chunks; size: number | undefined }
);

export async function fileSourceOf(
  source: UploadSource,
  fileName: string | undefined,
  onProgress?: OnProgress,
  safeToFree = false,
): Promise<FileSource> {
  const progress = onProgress ? { onProgress } : {};
  if (typeof source === "string") {
    const size = sizeOf(source);
    const blob = await openAsBlob(source).catch((error: Error) => {
      throw new TransferError(`cannot upload ${source}: ${error.message}`, error);
    });
    return { fileName: fileName ?? basename(source), size, blob, ...progress };
  }
  const name = fileName ?? "upload.bin";
  if (source instanceof Blob) return { fileName: name, size: source.size, blob: source, ...progress };
  if (source instanceof Uint8Array)
    return { fileName: name, size: source.byteLength, blob: new Blob([source.slice()]), ...progress };
  if (typeof source === "object" && source !== null && "chunks" in source) {
    return {
      fileName: name,
      size: source.size,
      open: () => withProgress(source.chunks(safeToFree), source.size, onProgress),
    };
  }
  throw new TransferError("an upload reads from a file path, a Blob, a Uint8Array or a StreamedUpload");
}

async function* withProgress(chunks: Chunks, total: number | undefined, onProgress?: OnProgress): Chunks {
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

import { createReadStream, statSync } from "node:fs";
import { basename } from "node:path";
import { Readable } from "node:stream";
import { TransferError } from "./errors.ts";
import { counted as countedStream, type OnProgress } from "./progress.ts";

/*
 * What an upload reads from: a file path (streamed, never read whole), a Blob (for example from
 * `fs.openAsBlob`, read lazily) or bytes already in memory. Each can be opened more than once.
 */
export type UploadSource = string | Blob | Uint8Array;

export interface FileSource {
  fileName: string;
  size: number;
  open(): Readable;
}

export function fileSourceOf(
  source: UploadSource,
  fileName: string | undefined,
  onProgress?: OnProgress,
): FileSource {
  const counted = (size: number, open: () => Readable): FileSource => ({
    fileName: fileName ?? "upload.bin",
    size,
    open: () => countedStream(open(), size, onProgress),
  });
  if (typeof source === "string") {
    const size = sizeOf(source);
    return { ...counted(size, () => createReadStream(source)), fileName: fileName ?? basename(source) };
  }
  if (source instanceof Blob) return counted(source.size, () => Readable.fromWeb(source.stream()));
  if (source instanceof Uint8Array)
    return counted(source.byteLength, () => Readable.from([Buffer.from(source)]));
  throw new TransferError("an upload reads from a file path, a Blob or a Uint8Array");
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

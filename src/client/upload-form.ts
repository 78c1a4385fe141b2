import { openAsBlob, statSync } from "node:fs";
import { basename } from "node:path";
import { TransferError } from "./errors.ts";
import type { OnProgress } from "./progress.ts";
import { type FormData, newFormData } from "./undici.ts";

/*
 * Multipart uploads through undici's FormData: undici writes the framing, computes the
 * Content-Length from the parts' sizes and streams each file part from its Blob (a file through
 * `fs.openAsBlob`, read lazily, never whole). A form can be sent again (the one retry after a
 * re-login): each send opens the parts anew, except a StreamedUpload's, whose bytes are gone.
 */
export type UploadSource = string | Blob | Uint8Array | StreamedUpload;

/**
 * Bytes that arrive while the upload runs (a download teed into it: ChunkPipe), readable once.
 * `safeToFree` tells the source that its consumer takes a chunk only once the socket took the
 * previous one (the client's own Agent), so that a chunk may be freed soon after.
 */
export interface StreamedUpload {
  size: number;
  chunks(safeToFree: boolean): AsyncIterable<Uint8Array>;
}

export interface FilePart {
  name: string;
  source: UploadSource;
  /** Default: the path's base name, else "upload.bin". */
  fileName: string | undefined;
  contentType: string;
  onProgress?: OnProgress;
  /** The client's own undici Agent sends the form (StreamedUpload's `safeToFree`). */
  ownAgent: boolean;
}

/** A form of text fields and one file part. */
export async function uploadForm(fields: Array<[string, string]>, file: FilePart): Promise<FormData> {
  const form = newFormData();
  for (const [name, value] of fields) form.append(name, value);
  form.append(file.name, await countedFile(file));
  return form;
}

/**
 * The file part as a File whose size undici reads up front and whose stream it reads when it
 * sends: bytes are counted for progress as undici takes them.
 */
class CountedFile extends File {
  readonly #size: number;
  readonly #open: () => AsyncIterable<Uint8Array>;
  readonly #onProgress: OnProgress | undefined;

  constructor(
    name: string,
    type: string,
    size: number,
    open: () => AsyncIterable<Uint8Array>,
    onProgress: OnProgress | undefined,
  ) {
    super([], name, { type });
    this.#size = size;
    this.#open = open;
    this.#onProgress = onProgress;
  }

  override get size(): number {
    return this.#size;
  }

  // undici iterates what `stream()` returns; an async iterable is all it needs.
  override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
    return counted(this.#open(), this.#size, this.#onProgress) as unknown as ReadableStream<
      Uint8Array<ArrayBuffer>
    >;
  }
}

async function* counted(
  chunks: AsyncIterable<Uint8Array>,
  total: number,
  onProgress: OnProgress | undefined,
): AsyncGenerator<Uint8Array> {
  let bytes = 0;
  for await (const chunk of chunks) {
    bytes += chunk.byteLength;
    yield chunk;
    // Reported once undici has taken the chunk.
    onProgress?.({ bytes, total });
  }
}

async function countedFile(part: FilePart): Promise<File> {
  const { source, contentType: type, onProgress } = part;
  if (typeof source === "string") {
    const blob = await blobOfPath(source, type);
    return new CountedFile(
      part.fileName ?? basename(source),
      type,
      blob.size,
      () => blob.stream(),
      onProgress,
    );
  }
  const name = part.fileName ?? "upload.bin";
  if (source instanceof Blob)
    return new CountedFile(name, type, source.size, () => source.stream(), onProgress);
  if (source instanceof Uint8Array) {
    const blob = new Blob([source as Uint8Array<ArrayBuffer>]);
    return new CountedFile(name, type, blob.size, () => blob.stream(), onProgress);
  }
  if (typeof source === "object" && source !== null && "chunks" in source) {
    let opened = false;
    return new CountedFile(
      name,
      type,
      source.size,
      () => {
        if (opened) throw new TransferError("a streamed upload cannot be sent twice: its bytes are gone");
        opened = true;
        return source.chunks(part.ownAgent);
      },
      onProgress,
    );
  }
  throw new TransferError("an upload reads from a file path, a Blob, a Uint8Array or a StreamedUpload");
}

async function blobOfPath(path: string, type: string): Promise<Blob> {
  try {
    if (!statSync(path).isFile()) throw new Error("not a regular file");
    return await openAsBlob(path, { type });
  } catch (error) {
    throw new TransferError(`cannot upload ${path}: ${(error as Error).message}`, error);
  }
}

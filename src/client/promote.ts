import { ChunkPipe } from "./chunk-pipe.ts";
import type { PlatformClient } from "./client.ts";
import type { OnProgress } from "./progress.ts";
import { isLengthRefusal } from "./resources/packages.ts";

/*
 * A package promotion in the time of one transfer: the package is downloaded from the source to
 * `path` and, while the download runs, the same bytes are uploaded to the target. Each chunk of
 * the download's body goes to the file and then, through a bounded pipe (chunk-pipe.ts), to the
 * upload's body: every byte is received once and sent once, hashed on the way, and nothing is read
 * back from the file. The slower side sets the pace (the download waits while the pipe is full),
 * and memory stays at the pipe's bound. The file is complete on disk when this returns, with its
 * sha256, for the caller to inspect before it installs anything: the upload does not wait for that
 * inspection, so a caller must never install a package whose file failed it.
 *
 * A download without a length goes on as an upload without one (sent chunked), pipelined all the
 * same, unless the target has refused such a body (411, packages.ts): then nothing is sent while
 * the download runs, `pipelined` is false, and the caller uploads from the file afterwards.
 *
 * An upload that fails does not fail the promotion: the download finishes alone, `uploaded` is
 * undefined and `uploadError` says why, so that the caller can upload from the file afterwards. A
 * download that fails fails the upload with it, and the promotion. The two clients must differ:
 * one client's concurrency limit could hold the upload behind the download that feeds it, so
 * with one client the upload follows the download.
 */

export interface PromoteOptions {
  /** The file name sent with the upload; default: `package-<id>.zip`. */
  fileName?: string;
  onDownload?: OnProgress;
  onUpload?: OnProgress;
  /** Bytes the pipe holds before the download waits for the upload; default 4 MiB. */
  bufferBytes?: number;
}

export interface PromoteResult {
  /** Bytes downloaded (the file's size). */
  bytes: number;
  /** The file's sha256, computed as it was downloaded. */
  sha256: string;
  /** The package's id on the target, when the upload completed. */
  uploaded: number | undefined;
  /** Why the upload did not complete, when it did not. */
  uploadError?: unknown;
  /** True when the upload ran while the download did. */
  pipelined: boolean;
}

export async function promotePackage(
  source: PlatformClient,
  target: PlatformClient,
  packageId: number,
  path: string,
  options: PromoteOptions = {},
): Promise<PromoteResult> {
  const fileName = options.fileName ?? `package-${packageId}.zip`;
  if (source === target) {
    const { bytes, sha256 } = await source.packages.download(packageId, path, {
      onProgress: options.onDownload,
    });
    const uploaded = await target.packages.upload(path, { fileName, onProgress: options.onUpload }).then(
      (id) => ({ id }),
      (error: unknown) => ({ error }),
    );
    return "id" in uploaded
      ? { bytes, sha256: sha256 as string, uploaded: uploaded.id, pipelined: false }
      : {
          bytes,
          sha256: sha256 as string,
          uploaded: undefined,
          uploadError: uploaded.error,
          pipelined: false,
        };
  }
  // One upload per try of the download that got a body; only the last one can complete.
  const uploads: Array<Promise<{ id: number } | { error: unknown }>> = [];
  const downloading = source.packages.download(packageId, path, {
    onProgress: options.onDownload,
    tee: (total) => {
      if (total === undefined && !target.packages.takesUnknownLength()) return undefined;
      const pipe = new ChunkPipe(total, options.bufferBytes);
      const upload = target.packages
        .upload(
          { size: total, chunks: (safeToFree) => pipe.chunks(safeToFree) },
          { fileName, onProgress: options.onUpload },
        )
        .then(
          (id) => ({ id }),
          (error: unknown) => ({ error }),
        )
        // An upload that stopped reads no more: the download must not wait for it.
        .finally(() => pipe.abandon());
      uploads.push(upload);
      return pipe;
    },
  });
  let downloaded: { bytes: number; sha256?: string };
  try {
    downloaded = await downloading;
  } finally {
    await Promise.all(uploads);
  }
  const { bytes } = downloaded;
  const sha256 = downloaded.sha256 as string;
  const last = await uploads.at(-1);
  if (!last) return { bytes, sha256, uploaded: undefined, pipelined: false };
  if ("id" in last) return { bytes, sha256, uploaded: last.id, pipelined: true };
  // Refused for want of a length: no copy went on while the download ran, whatever was written.
  const pipelined = !isLengthRefusal(last.error);
  return { bytes, sha256, uploaded: undefined, uploadError: last.error, pipelined };
}

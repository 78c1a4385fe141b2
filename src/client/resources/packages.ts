import { rename, rm } from "node:fs/promises";
import type { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { z } from "zod";
import {
  EmptyObject,
  IdObject,
  type PackageCreateRequest,
  PackageInfo,
  type PackageInstallRequest,
} from "../../wire/index.ts";
import { idOf } from "../args.ts";
import type { Call, Caller } from "../caller.ts";
import type { ChunkPipe } from "../chunk-pipe.ts";
import { type DecodeContext, messagesOf, one, oneOrMany, parseJson } from "../envelope.ts";
import {
  connectionErrorOf,
  errorFromResponse,
  PackageTooLargeError,
  PlatformError,
  ResponseShapeError,
  TransferError,
} from "../errors.ts";
import { FileBodySink } from "../file-body-sink.ts";
import { fileSourceOf, type UploadSource } from "../file-source.ts";
import { multipartBody } from "../multipart.ts";
import { type OnProgress, progressCounter } from "../progress.ts";
import { apiCoreRoute } from "../route.ts";
import { isSinkError, type RawResponse } from "../transport.ts";

/*
 * Package automation, under the `/api/core/` prefix the seed writes (discovered per instance).
 * - create, generate, install and upload are not retried: a lost answer raises
 *   OutcomeUnknownError, and the caller re-reads before trying again (DESIGN §3);
 * - download and upload stream: the file never sits in memory, and progress is reported in bytes.
 * - `list` and `get` are not in the seed: the emulator serves them so that a caller can wait for
 *   a generate or install job to finish (a real instance may answer 404).
 * A download to a path writes `<path>.part` and renames it when complete, so a failed download
 * never leaves a truncated file under the final name.
 * An upload of bytes of unknown length (a download without one, teed into it) is sent chunked. An
 * instance that refuses such a body (411 Length Required, or 501 for a transfer coding it does not
 * implement) is remembered: `takesUnknownLength()` then says so, and a caller sends a file instead.
 */

const idOnly = one(IdObject);

export interface TransferOptions {
  onProgress?: OnProgress;
}

export interface DownloadOptions extends TransferOptions {
  /**
   * A download to a path: called when a try's body starts, with its announced size; a pipe
   * returned gets every chunk once it is on disk (promotePackage), ended when the file is whole
   * and failed when the download fails.
   */
  tee?: (total: number | undefined) => ChunkPipe | undefined;
  /**
   * A download to a path: most bytes of the package (default: the client's `limits.packageBytes`).
   * An answer past it fails with EGP_PACKAGE_TOO_LARGE, is not retried, and leaves no file.
   */
  maxBytes?: number;
}

export interface Downloaded {
  bytes: number;
  /** A download to a path: the file's sha256, computed on the way to disk. */
  sha256?: string;
}

export interface UploadOptions extends TransferOptions {
  /** The file name sent in the part; default: the path's base name. */
  fileName?: string;
}

const PackageRead = PackageInfo.loose();
export type PackageRead = z.infer<typeof PackageRead>;

export function packagesResource(caller: Caller) {
  const write = async (call: Call<IdObject>) => (await caller.call(call)).Id;
  let lengthRequired = false;
  return {
    /** Returns the new package's id. */
    async create(request: PackageCreateRequest): Promise<number> {
      return write({ method: "POST", route: apiCoreRoute`/core/package/`, json: request, decode: idOnly });
    },

    /** Starts the generate job; the package can be downloaded once the job is done. */
    async generate(packageId: number): Promise<void> {
      await caller.call({
        method: "POST",
        route: apiCoreRoute`/core/package/generate/${idOf("packageId", packageId)}`,
        decode: one(EmptyObject),
      });
    },

    /** Starts the install job. */
    async install(request: PackageInstallRequest): Promise<void> {
      await caller.call({
        method: "POST",
        route: apiCoreRoute`/core/package/install`,
        json: request,
        decode: one(EmptyObject),
      });
    },

    /** Uploads a package zip, streamed from the source; returns the package id on the target. */
    async upload(source: UploadSource, options: UploadOptions = {}): Promise<number> {
      const file = await fileSourceOf(source, options.fileName, options.onProgress, caller.ownsTransport);
      const body = multipartBody([{ name: "file", contentType: "application/zip", file }]);
      const sent = write({
        method: "POST",
        route: apiCoreRoute`/core/package/upload`,
        multipart: body,
        decode: idOnly,
        what: `the upload of ${file.fileName}`,
      });
      if (file.size !== undefined) return sent;
      return sent.catch((error: unknown) => {
        if (isLengthRefusal(error)) {
          lengthRequired = true;
          caller.log.debug(
            { status: error.status, path: error.path },
            "the instance refuses an upload without a length; packages go to it from a file, with one",
          );
        }
        throw error;
      });
    },

    /** False once this instance refused an upload without a length: send it a file instead. */
    takesUnknownLength(): boolean {
      return !lengthRequired;
    },

    /**
     * Streams the package file to a path (with its sha256, computed on the way to disk) or to a
     * writable stream; returns the byte count.
     */
    async download(
      packageId: number,
      destination: string | Writable,
      options: DownloadOptions = {},
    ): Promise<Downloaded> {
      const route = apiCoreRoute`/core/package/download/${idOf("packageId", packageId)}`;
      const { onProgress } = options;
      if (typeof destination !== "string") {
        return caller.call({
          method: "GET",
          route,
          what: `the download of package ${packageId}`,
          consume: (response, context) => saveToStream(response, context, destination, onProgress),
        });
      }
      // Each chunk goes from undici's parser to `<path>.part` as it arrives (transport getInto,
      // FileBodySink), renamed when whole. An answer the sink refuses comes back with its body.
      const partial = `${destination}.part`;
      const maxBytes = options.maxBytes ?? caller.packageBytes;
      const sink = new FileBodySink(partial, {
        release: caller.ownsTransport,
        onWritten: (bytes) => onProgress?.({ bytes, total: sink.total }),
        ...(options.tee ? { tee: options.tee } : {}),
        maxBytes,
        tooLarge: (bytes: number) =>
          new PackageTooLargeError({
            code: "EGP_PACKAGE_TOO_LARGE",
            message: `GET ${route.path}: package ${packageId} is larger than limits.packageBytes (${maxBytes} bytes; ${bytes} bytes ${sink.total === bytes ? "announced" : "reached"}); stopped, and kept nothing`,
            method: "GET",
            path: route.path,
          }),
      });
      try {
        const result: Downloaded = await caller.call({
          method: "GET",
          route,
          what: `the download of package ${packageId}`,
          sink,
          consume: async (response, context) =>
            response.taken
              ? { bytes: sink.written, sha256: sink.sha256() }
              : refuseEnvelope(response, context),
        });
        sink.pipe?.end();
        sink.close();
        await rename(partial, destination);
        return result;
      } catch (error) {
        sink.pipe?.fail(error);
        sink.close();
        await rm(partial, { force: true });
        // The sink's own failures (the disk) come through the caller as they are.
        if (error instanceof PackageTooLargeError) throw error;
        throw isSinkError(error) ? diskFailure(error) : error;
      }
    },

    /** Not in the seed: every package, with its status and install jobs. */
    async list() {
      return caller.call({
        method: "POST",
        override: true,
        route: apiCoreRoute`/core/package`,
        decode: oneOrMany(PackageRead),
      });
    },

    /** Not in the seed: one package, with its status and install jobs (to wait for a job). */
    async get(packageId: number) {
      return caller.call({
        method: "POST",
        override: true,
        route: apiCoreRoute`/core/package/${idOf("packageId", packageId)}`,
        decode: one(PackageRead),
      });
    },
  };
}

export type PackagesResource = ReturnType<typeof packagesResource>;

async function saveToStream(
  response: RawResponse,
  context: DecodeContext,
  destination: Writable,
  onProgress: OnProgress | undefined,
): Promise<{ bytes: number }> {
  const type = String(response.headers["content-type"] ?? "");
  if (/json/i.test(type)) return refuseEnvelope(response, context);
  let bytes = 0;
  const counter = progressCounter(totalOf(response), (progress) => {
    bytes = progress.bytes;
    onProgress?.(progress);
  });
  await pipeline(response.body, counter, destination).catch((error: unknown) => {
    // Bytes already written to a caller's stream cannot be taken back: never retried.
    throw bytes > 0
      ? new TransferError(`download failed after ${bytes} bytes`, error)
      : mapped(error, context);
  });
  return { bytes };
}

function totalOf(response: RawResponse): number | undefined {
  const length = Number(response.headers["content-length"]);
  return Number.isFinite(length) ? length : undefined;
}

/** The answer of an instance that wants a request body's length up front. */
export function isLengthRefusal(error: unknown): error is PlatformError {
  return error instanceof PlatformError && (error.status === 411 || error.status === 501);
}

/** A JSON answer where a file was expected: an error envelope, or a shape the client cannot use. */
async function refuseEnvelope(response: RawResponse, context: DecodeContext): Promise<never> {
  const payload = parseJson(await response.body.text(), context) as { IsSuccessful?: unknown };
  if (payload?.IsSuccessful === false) {
    throw errorFromResponse({ ...context, messages: messagesOf(payload) });
  }
  throw new ResponseShapeError({
    ...context,
    issues: [{ code: "custom", message: "expected a package file, got JSON", path: [], input: undefined }],
  });
}

/** The network side failing is a ConnectionError (retried); the local side a TransferError. */
function mapped(error: unknown, context: DecodeContext): Error {
  const code = String((error as { code?: unknown })?.code ?? "");
  if (code.startsWith("UND_ERR") || code === "ECONNRESET") {
    return connectionErrorOf(error, context);
  }
  return diskFailure(error);
}

function diskFailure(error: unknown): TransferError {
  return new TransferError(`download to disk failed: ${(error as Error)?.message ?? error}`, error);
}

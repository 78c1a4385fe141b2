import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
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
import { type DecodeContext, messagesOf, one, oneOrMany, parseJson } from "../envelope.ts";
import { connectionErrorOf, errorFromResponse, ResponseShapeError, TransferError } from "../errors.ts";
import { type OnProgress, progressCounter } from "../progress.ts";
import { apiCoreRoute } from "../route.ts";
import type { RawResponse } from "../transport.ts";
import { type UploadSource, uploadForm } from "../upload-form.ts";

/*
 * Package automation, under the `/api/core/` prefix the seed writes (discovered per instance).
 * - create, generate, install and upload are not retried: a lost answer raises
 *   OutcomeUnknownError, and the caller re-reads before trying again (DESIGN §3);
 * - download and upload stream: the file never sits in memory, and progress is reported in bytes.
 * - `list` and `get` are not in the seed: the emulator serves them so that a caller can wait for
 *   a generate or install job to finish (a real instance may answer 404).
 * A download to a path writes `<path>.part` and renames it when complete, so a failed download
 * never leaves a truncated file under the final name.
 */

const idOnly = one(IdObject);

export interface TransferOptions {
  onProgress?: OnProgress;
}

export interface DownloadOptions extends TransferOptions {
  /**
   * A download to a path: called when a try's body starts, with its announced size; a stream
   * returned gets every chunk as it goes to the file (promotePackage), and waits while that stream
   * is full. It is ended once the file is whole and destroyed with an error when the try fails; one
   * destroyed from outside is left alone, and the download goes on.
   */
  tee?: (total: number | undefined) => Writable | undefined;
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
      const form = await uploadForm([], {
        name: "file",
        source,
        fileName: options.fileName,
        contentType: "application/zip",
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      });
      const fileName = (form.get("file") as File).name;
      return write({
        method: "POST",
        route: apiCoreRoute`/core/package/upload`,
        form,
        decode: idOnly,
        what: `the upload of ${fileName}`,
      });
    },

    /**
     * Streams the package file to a path (with its sha256) or to a writable stream; returns the
     * byte count.
     */
    async download(
      packageId: number,
      destination: string | Writable,
      options: DownloadOptions = {},
    ): Promise<Downloaded> {
      const route = apiCoreRoute`/core/package/download/${idOf("packageId", packageId)}`;
      const what = `the download of package ${packageId}`;
      const { onProgress } = options;
      if (typeof destination !== "string") {
        return caller.call({
          method: "GET",
          route,
          what,
          consume: (response, context) => saveToStream(response, context, destination, onProgress),
        });
      }
      // Every try writes `<path>.part` anew; it is renamed once whole, and removed on failure.
      const partial = `${destination}.part`;
      let tee: Writable | undefined;
      try {
        const result = await caller.call({
          method: "GET",
          route,
          what,
          consume: async (response, context) => {
            if (/json/i.test(String(response.headers["content-type"] ?? "")))
              return refuseEnvelope(response, context);
            // A try that starts again ends the previous try's tee (its upload fails with it).
            tee?.destroy(new TransferError("the download feeding this upload started again"));
            const total = totalOf(response);
            tee = options.tee?.(total);
            return saveToFile(response, context, partial, total, tee, onProgress);
          },
        });
        tee?.end();
        await rename(partial, destination);
        return result;
      } catch (error) {
        tee?.destroy(
          new TransferError(`the download feeding this upload stopped: ${(error as Error)?.message}`, error),
        );
        await rm(partial, { force: true });
        throw error;
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

/**
 * One try of a download to a path: the body goes to the file through `stream.pipeline`, hashed on
 * the way, and each chunk is handed to `tee` as well (the same buffer: no copy, no read back).
 * The body's failures are ConnectionErrors (the GET is retried, into a new file); the disk's are
 * TransferErrors.
 */
async function saveToFile(
  response: RawResponse,
  context: DecodeContext,
  path: string,
  total: number | undefined,
  tee: Writable | undefined,
  onProgress: OnProgress | undefined,
): Promise<Downloaded> {
  const hash = createHash("sha256");
  let bytes = 0;
  let diskFailed = false;
  // Packages are snapshots of an instance: readable by this user only.
  const file = createWriteStream(path, { mode: 0o600 }).once("error", () => {
    diskFailed = true;
  });
  async function* tapped(body: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    for await (const chunk of body) {
      hash.update(chunk);
      if (tee && !tee.destroyed && !tee.write(chunk)) await drainOf(tee);
      yield chunk;
      bytes += chunk.byteLength;
      onProgress?.({ bytes, total });
    }
  }
  await pipeline(response.body, tapped, file).catch((error: unknown) => {
    throw diskFailed ? diskFailure(error) : mapped(error, context);
  });
  return { bytes, sha256: hash.digest("hex") };
}

/** Resolves once `stream` can take more, or is gone (an upload that stopped). */
function drainOf(stream: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off("drain", done);
      stream.off("close", done);
      resolve();
    };
    stream.once("drain", done);
    stream.once("close", done);
  });
}

function totalOf(response: RawResponse): number | undefined {
  const length = Number(response.headers["content-length"]);
  return Number.isFinite(length) ? length : undefined;
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
    return connectionErrorOf(error, context, context.scrub);
  }
  return diskFailure(error);
}

function diskFailure(error: unknown): TransferError {
  return new TransferError(`download to disk failed: ${(error as Error)?.message ?? error}`, error);
}

import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { pipeline } from "node:stream/promises";
import { checkKey, sha256Of } from "./folder-store.ts";
import {
  MANIFEST_TYPE,
  type OciCredentials,
  OciRegistry,
  parseOciReference,
  printable,
} from "./oci-registry.ts";
import { isHashedTag, keyOfTag, tagOfKey, tagPrefixOf } from "./oci-tags.ts";
import { parseRecord } from "./record-json.ts";
import type { PutRecordOptions, ReleaseStore } from "./store.ts";
import { StoreError } from "./store-error.ts";

export {
  MANIFEST_TYPE,
  nextLink,
  type OciCredentials,
  type OciReference,
  parseChallenge,
  parseOciReference,
  retryDelay,
} from "./oci-registry.ts";

/*
 * A store in an OCI registry (the protocol is oci-registry.ts): files are blobs by `sha256:<hex>`; a
 * record is an artifact manifest (artifactType RECORD_TYPE) whose first layer is the record's JSON
 * and whose other layers are the blobs it refers to, so that a registry's garbage collection keeps a
 * release's files as long as its record; it is tagged with its key (oci-tags.ts).
 */

export const RECORD_TYPE = "application/vnd.egp.record.v1+json";
export const FILE_TYPE = "application/vnd.egp.file.v1";
/** The annotation that holds a record's key, for tags that can't be read back (oci-tags.ts). */
export const KEY_ANNOTATION = "egp.store.key";
const EMPTY_TYPE = "application/vnd.oci.empty.v1+json";
const EMPTY = Buffer.from("{}");
const EMPTY_DIGEST = createHash("sha256").update(EMPTY).digest("hex");
const SHA256 = /^[0-9a-f]{64}$/;
// Records are small JSON documents; a larger "record" is not one of ours.
const MAX_RECORD_BYTES = 16 * 1024 * 1024;

/** An address as it may be shown: a user and password written in it (`oci://u:p@host`) are not. */
export function printableAddress(address: string): string {
  return JSON.stringify(address.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/]*@/i, "$1***@"));
}

export interface OciStoreOptions {
  /** `oci://host[:port]/repository`. */
  reference: string;
  /** HTTP instead of HTTPS (Helm's and ORAS's `--plain-http`); always so for localhost and 127.0.0.1. */
  plainHttp?: boolean;
  /** For basic auth, and for the token server of the bearer flow; anonymous without them. */
  credentials?: OciCredentials;
  /** Tags asked for per page of the tag list (the registry may give fewer). */
  pageSize?: number;
  /** Waits before a retry; tests record instead of sleeping. */
  sleep?: (ms: number) => Promise<void>;
  /**
   * How long a create-once write waits before it reads its tag back (default 1500 ms): a run whose
   * own check-to-write window is shorter can't have overwritten a rival that already read back.
   */
  settleMs?: number;
}

interface Manifest {
  layers?: { mediaType?: string; digest?: string; size?: number }[];
  annotations?: Record<string, string>;
}

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

export class OciStore implements ReleaseStore {
  readonly location: string;
  /** `https://host[:port]` (or http: for localhost or plainHttp). */
  readonly endpoint: string;
  readonly #registry: OciRegistry;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #settleMs: number;
  #emptyPushed = false;

  constructor(options: OciStoreOptions) {
    const reference = parseOciReference(options.reference);
    if (!reference) {
      throw new StoreError(
        "EGP_STORE_LOCATION",
        `not an OCI address: ${printableAddress(options.reference)} (expected oci://host[:port]/repository)`,
      );
    }
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#registry = new OciRegistry({
      reference,
      ...(options.plainHttp === undefined ? {} : { plainHttp: options.plainHttp }),
      ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
      ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
      sleep: this.#sleep,
    });
    this.endpoint = this.#registry.endpoint;
    this.location = this.#registry.location;
    this.#settleMs = options.settleMs ?? 1500;
  }

  /** Closes the connections kept open to the registry. */
  close(): Promise<void> {
    return this.#registry.close();
  }

  async putFile(path: string): Promise<{ digest: string; size: number }> {
    const { digest, size } = await sha256Of(path);
    if (!(await this.hasFile(digest))) {
      await this.#registry.uploadBlob(`sha256:${digest}`, size, () => createReadStream(path));
    }
    return { digest, size };
  }

  async #putBytes(bytes: Buffer): Promise<string> {
    const digest = sha256(bytes);
    if (!(await this.hasFile(digest)))
      await this.#registry.uploadBlob(`sha256:${digest}`, bytes.length, () => bytes);
    return digest;
  }

  async hasFile(digest: string): Promise<boolean> {
    return (await this.#blobSize(digest)) !== undefined;
  }

  async #blobSize(digest: string): Promise<number | undefined> {
    if (!SHA256.test(digest)) return undefined;
    return this.#registry.blobSize(`sha256:${digest}`);
  }

  async getFile(digest: string, path: string): Promise<void> {
    if (!SHA256.test(digest)) {
      throw new StoreError("EGP_STORE_NOT_FOUND", `not a sha256: ${JSON.stringify(digest)}`);
    }
    const body = await this.#registry.openBlob(`sha256:${digest}`, `can't read sha256:${digest}`);
    if (!body) {
      throw new StoreError("EGP_STORE_NOT_FOUND", `no file sha256:${digest} in the store ${this.location}`, {
        status: 404,
      });
    }
    await mkdir(dirname(path), { recursive: true });
    const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      const hash = createHash("sha256");
      await pipeline(
        body,
        async function* (source: AsyncIterable<Buffer>) {
          for await (const chunk of source) {
            hash.update(chunk);
            yield chunk;
          }
        },
        createWriteStream(temp, { mode: 0o600 }),
      ).catch((error: NodeJS.ErrnoException) => {
        // The file system's own errors (ENOSPC…) are the machine's, not the store's.
        if (error.syscall) throw error;
        throw new StoreError(
          "EGP_STORE_UNAVAILABLE",
          `reading sha256:${digest} from the store ${this.location} broke off: ${printable(error.message)}`,
          { cause: error },
        );
      });
      const read = hash.digest("hex");
      if (read !== digest) {
        throw new StoreError(
          "EGP_STORE_DIGEST_MISMATCH",
          `the store's file sha256:${digest} reads as sha256:${read}: it was altered; egp does not use it`,
        );
      }
      await rename(temp, path);
    } finally {
      await rm(temp, { force: true });
    }
  }

  async putRecord(key: string, value: unknown, options: PutRecordOptions = {}): Promise<void> {
    checkKey(key);
    const tag = tagOfKey(key);
    const body = await this.#recordManifest(key, value, options.blobs ?? []);
    if (options.createOnly) return this.#createOnce(key, tag, body);
    await this.#registry.putManifest(tag, body, { doing: `can't store ${key}` });
  }

  /**
   * A registry has no conditional write, so a record created once is checked, written, and read back
   * after a settle time: of two runs that both found the tag free, the later write stands and the
   * earlier writer reads another manifest and refuses. A run whose own check-to-write window reached
   * the settle time can't be sure no rival read its tag back in between, and says so.
   */
  async #createOnce(key: string, tag: string, body: Buffer): Promise<void> {
    const checked = Date.now();
    if (await this.#registry.hasManifest(tag)) throw this.#exists(key);
    // Not retried on 5xx: a retry after a wait would widen the window.
    const refused = await this.#registry
      .putManifest(tag, body, { doing: `can't store ${key}`, retry: false })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    const window = Date.now() - checked;
    await this.#sleep(this.#settleMs);
    const now = await this.#manifestDigest(tag);
    // A rival pushing the same blobs at the same moment can make the registry refuse this manifest.
    if (refused !== undefined && (now === undefined || now === `sha256:${sha256(body)}`)) throw refused;
    if (now !== `sha256:${sha256(body)}`) {
      throw new StoreError(
        "EGP_STORE_EXISTS",
        `${key} was created by another run at the same time in the store ${this.location}; that one stands, this one is not kept`,
      );
    }
    if (window >= this.#settleMs) {
      throw new StoreError(
        "EGP_STORE_UNAVAILABLE",
        `creating ${key} in the store ${this.location} took ${window} ms from check to write, too long to be sure no other run created it at the same time; read it back before using it`,
      );
    }
  }

  #exists(key: string): StoreError {
    return new StoreError("EGP_STORE_EXISTS", `${key} already exists in the store ${this.location}`);
  }

  /** The record's JSON and the blobs it names, pushed; returns the manifest's bytes. */
  async #recordManifest(key: string, value: unknown, blobs: readonly string[]): Promise<Buffer> {
    const record = Buffer.from(`${JSON.stringify(value, null, 2)}\n`);
    const recordDigest = await this.#putBytes(record);
    if (!this.#emptyPushed) {
      await this.#putBytes(EMPTY);
      this.#emptyPushed = true;
    }
    const files = [];
    for (const digest of new Set(blobs)) {
      const size = await this.#blobSize(digest);
      if (size === undefined) {
        throw new StoreError(
          "EGP_STORE_NOT_FOUND",
          `${key} refers to sha256:${digest}, which is not in the store ${this.location}`,
        );
      }
      files.push({ mediaType: FILE_TYPE, digest: `sha256:${digest}`, size });
    }
    const manifest = {
      schemaVersion: 2,
      mediaType: MANIFEST_TYPE,
      artifactType: RECORD_TYPE,
      config: {
        mediaType: EMPTY_TYPE,
        digest: `sha256:${EMPTY_DIGEST}`,
        size: EMPTY.length,
        data: EMPTY.toString("base64"),
      },
      layers: [{ mediaType: RECORD_TYPE, digest: `sha256:${recordDigest}`, size: record.length }, ...files],
      annotations: { [KEY_ANNOTATION]: key },
    };
    return Buffer.from(JSON.stringify(manifest));
  }

  /** The digest of the manifest a tag names now, or undefined when there is none. */
  async #manifestDigest(tag: string): Promise<string | undefined> {
    const read = await this.#registry.getManifest(tag, MAX_RECORD_BYTES, `can't read the tag ${tag}`);
    return read && `sha256:${sha256(read.bytes)}`;
  }

  async #manifest(tag: string, key: string): Promise<Manifest | undefined> {
    const read = await this.#registry.getManifest(tag, MAX_RECORD_BYTES, `can't read ${key}`);
    if (!read) return undefined;
    if (read.digest?.startsWith("sha256:") && read.digest !== `sha256:${sha256(read.bytes)}`) {
      throw new StoreError(
        "EGP_STORE_DIGEST_MISMATCH",
        `the manifest of ${key} in the store ${this.location} does not have the digest the registry gives it`,
      );
    }
    try {
      return JSON.parse(read.bytes.toString("utf8")) as Manifest;
    } catch (error) {
      throw new StoreError(
        "EGP_STORE_UNAVAILABLE",
        `${key} in the store ${this.location} is not a manifest`,
        {
          cause: error,
        },
      );
    }
  }

  async getRecord(key: string): Promise<unknown> {
    checkKey(key);
    const manifest = await this.#manifest(tagOfKey(key), key);
    if (!manifest) return undefined;
    const layer = manifest.layers?.[0];
    const digest = layer?.digest?.replace(/^sha256:/, "") ?? "";
    if (
      layer?.mediaType !== RECORD_TYPE ||
      !SHA256.test(digest) ||
      manifest.annotations?.[KEY_ANNOTATION] !== key
    ) {
      throw new StoreError(
        "EGP_STORE_UNAVAILABLE",
        `the tag of ${key} in the store ${this.location} is not an egp record`,
      );
    }
    const bytes = await this.#registry.readBlob(`sha256:${digest}`, MAX_RECORD_BYTES, `can't read ${key}`);
    if (sha256(bytes) !== digest) {
      throw new StoreError(
        "EGP_STORE_DIGEST_MISMATCH",
        `the record ${key} (sha256:${digest}) in the store ${this.location} was altered; egp does not use it`,
      );
    }
    return parseRecord(bytes.toString("utf8"), key, this.location);
  }

  async listRecords(prefix: string): Promise<string[]> {
    checkKey(prefix);
    const found: string[] = [];
    const tagPrefix = tagPrefixOf(prefix);
    for await (const tag of this.#registry.tags()) {
      const key = keyOfTag(tag);
      if (key !== undefined) {
        if (key.startsWith(`${prefix}/`)) found.push(key);
        continue;
      }
      if (!isHashedTag(tag)) continue;
      const kept = tag.replace(/_H_[0-9a-f]{64}$/, "");
      if (!(kept.startsWith(tagPrefix) || tagPrefix.startsWith(kept))) continue;
      const annotated = (await this.#manifest(tag, tag))?.annotations?.[KEY_ANNOTATION];
      if (annotated?.startsWith(`${prefix}/`) && tagOfKey(annotated) === tag) found.push(annotated);
    }
    return found.sort();
  }
}

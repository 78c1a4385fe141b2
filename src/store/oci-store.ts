import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Dispatcher } from "undici";
import { StoreError, StoreErrorCode } from "./error-codes.ts";
import { checkKey, sha256Of } from "./folder-store.ts";
import { isHashedTag, keyOfTag, tagOfKey, tagPrefixOf } from "./oci-tags.ts";
import type { PutRecordOptions, ReleaseStore } from "./store.ts";

/*
 * A store in an OCI registry, over the distribution specification's HTTP API: files are blobs by
 * `sha256:<hex>`; a record is an artifact manifest (artifactType RECORD_TYPE) whose first layer is
 * the record's JSON and whose other layers are the blobs it refers to, so that a registry's garbage
 * collection keeps a release's files as long as its record; it is tagged with its key (oci-tags.ts).
 */

export const MANIFEST_TYPE = "application/vnd.oci.image.manifest.v1+json";
export const RECORD_TYPE = "application/vnd.egp.record.v1+json";
export const FILE_TYPE = "application/vnd.egp.file.v1";
/** The annotation that holds a record's key, for tags that can't be read back (oci-tags.ts). */
export const KEY_ANNOTATION = "egp.store.key";
const EMPTY_TYPE = "application/vnd.oci.empty.v1+json";
const EMPTY = Buffer.from("{}");
const EMPTY_DIGEST = createHash("sha256").update(EMPTY).digest("hex");

// From the distribution specification: path components of a repository name.
const REPOSITORY = /^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*)*$/;
const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9a-fA-F:.]+\])(?::\d{1,5})?$/;
const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/;
const SHA256 = /^[0-9a-f]{64}$/;
// Records are small JSON documents; a larger "record" is not one of ours.
const MAX_RECORD_BYTES = 16 * 1024 * 1024;
const MAX_REDIRECTS = 5;

export interface OciReference {
  /** `host[:port]`, as written. */
  host: string;
  repository: string;
}

/** An address as it may be shown: a user and password written in it (`oci://u:p@host`) are not. */
export function printableAddress(address: string): string {
  return JSON.stringify(address.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/]*@/i, "$1***@"));
}

/** `oci://host[:port]/repository` → its parts; undefined when it is not one. */
export function parseOciReference(reference: string): OciReference | undefined {
  const match = /^oci:\/\/([^/]+)\/(.+)$/.exec(reference);
  if (!match) return undefined;
  const [, host = "", repository = ""] = match;
  if (!HOST.test(host) || !REPOSITORY.test(repository)) return undefined;
  return { host, repository };
}

export interface OciCredentials {
  username: string;
  password: string;
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

const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);
const BLOB_RACE_MS = 200;
const MAX_ATTEMPTS = 4;
const MAX_WAIT_MS = 30_000;

/** Milliseconds before try `attempt + 1`: the registry's Retry-After (seconds), else backoff with jitter. */
export function retryDelay(attempt: number, retryAfter: string | undefined, random = Math.random): number {
  const seconds = Number(retryAfter);
  if (retryAfter !== undefined && retryAfter.trim() !== "" && Number.isFinite(seconds) && seconds >= 0) {
    return Math.min(seconds * 1000, MAX_WAIT_MS);
  }
  const backoff = Math.min(500 * 2 ** (attempt - 1), MAX_WAIT_MS);
  return Math.round(backoff / 2 + (backoff / 2) * random());
}

interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

interface Manifest {
  layers?: { mediaType?: string; digest?: string; size?: number }[];
  annotations?: Record<string, string>;
}

interface Send {
  headers?: Record<string, string>;
  body?: () => Buffer | Readable;
}

/** `Bearer realm="…",service="…",scope="…"` → its scheme and parameters. */
export function parseChallenge(header: string): Challenge | undefined {
  const match = /^\s*(\w+)\s*(.*)$/s.exec(header);
  if (!match) return undefined;
  const [, scheme = "", rest = ""] = match;
  const params: Record<string, string> = {};
  for (const [, name = "", quoted, bare] of rest.matchAll(/(\w+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))/g)) {
    params[name.toLowerCase()] = quoted === undefined ? (bare ?? "") : quoted.replace(/\\(.)/g, "$1");
  }
  return { scheme: scheme.toLowerCase(), params };
}

/** The `next` target of an RFC 8288 Link header, or undefined. */
export function nextLink(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (match && /;\s*rel="?next"?/i.test(match[2] ?? "")) return match[1];
  }
  return undefined;
}

// A registry's words go into our messages: no control characters, and not a page of them.
const printable = (text: string) => text.replace(/[\p{Cc}]/gu, " ").slice(0, 300);

function header(response: Dispatcher.ResponseData, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function drain(response: Dispatcher.ResponseData): Promise<void> {
  await response.body.dump().catch(() => undefined);
}

async function bytesOf(response: Dispatcher.ResponseData, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      response.body.destroy();
      throw new StoreError(StoreErrorCode.Unavailable, `the registry's answer is larger than ${limit} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

export class OciStore implements ReleaseStore {
  readonly location: string;
  /** `https://host[:port]` (or http: for localhost or plainHttp). */
  readonly endpoint: string;
  readonly #base: string;
  readonly #repository: string;
  readonly #credentials: OciCredentials | undefined;
  readonly #pageSize: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #settleMs: number;
  // Errors of the connection itself (refused, reset, timed out), which a retry may get past.
  readonly #unreachable = new WeakSet<Error>();
  #authorization: string | undefined;
  #agent: Promise<Dispatcher & { close(): Promise<void> }> | undefined;
  #emptyPushed = false;

  constructor(options: OciStoreOptions) {
    const reference = parseOciReference(options.reference);
    if (!reference) {
      throw new StoreError(
        StoreErrorCode.BadLocation,
        `not an OCI address: ${printableAddress(options.reference)} (expected oci://host[:port]/repository)`,
      );
    }
    const hostname = reference.host.replace(/:\d+$/, "");
    const plain = options.plainHttp === true || LOOPBACK.test(hostname);
    this.#base = `${plain ? "http" : "https"}://${reference.host}`;
    this.endpoint = this.#base;
    this.#repository = reference.repository;
    this.#credentials = options.credentials;
    this.#pageSize = options.pageSize ?? 1000;
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#settleMs = options.settleMs ?? 1500;
    this.location = `oci://${reference.host}/${reference.repository}`;
  }

  /** Closes the connections kept open to the registry. */
  async close(): Promise<void> {
    const agent = this.#agent;
    this.#agent = undefined;
    if (agent) await (await agent).close();
  }

  #dispatcher(): Promise<Dispatcher & { close(): Promise<void> }> {
    // undici is loaded when a store is used: most commands never open one.
    this.#agent ??= import("undici").then(({ Agent }) => new Agent());
    return this.#agent;
  }

  #url(path: string): string {
    return new URL(path, this.#base).href;
  }

  async #raw(method: Dispatcher.HttpMethod, url: string, send: Send, auth: string | undefined) {
    const headers: Record<string, string> = { ...send.headers };
    if (auth) headers.authorization = auth;
    try {
      return await (await this.#dispatcher()).request({
        origin: new URL(url).origin,
        path: new URL(url).pathname + new URL(url).search,
        method,
        headers,
        body: send.body?.(),
      });
    } catch (error) {
      const failure = new StoreError(
        StoreErrorCode.Unavailable,
        `can't reach the store ${this.location}: ${printable((error as Error).message)}`,
        { cause: error },
      );
      this.#unreachable.add(failure);
      throw failure;
    }
  }

  /**
   * One request, tried again on 429 and 5xx answers and on connection errors, except the PUT that
   * ends a blob upload: its upload session may be used up, and the upload is started again instead.
   */
  async #send(
    method: Dispatcher.HttpMethod,
    path: string,
    send: Send = {},
  ): Promise<Dispatcher.ResponseData> {
    const again = !(method === "PUT" && path.includes("/blobs/uploads/"));
    for (let attempt = 1; ; attempt++) {
      let response: Dispatcher.ResponseData;
      try {
        response = await this.#once(method, path, send);
      } catch (error) {
        if (!again || attempt >= MAX_ATTEMPTS || !this.#unreachable.has(error as Error)) throw error;
        await this.#sleep(retryDelay(attempt, undefined));
        continue;
      }
      if (!again || attempt >= MAX_ATTEMPTS || !RETRY_STATUSES.has(response.statusCode)) return response;
      const wait = retryDelay(attempt, header(response, "retry-after"));
      await drain(response);
      await this.#sleep(wait);
    }
  }

  /** One request, authenticated when the registry asks (401), following redirects for blobs. */
  async #once(
    method: Dispatcher.HttpMethod,
    path: string,
    send: Send = {},
  ): Promise<Dispatcher.ResponseData> {
    let url = this.#url(path);
    // A Location or Link the registry sends may name another host: it gets no credentials.
    if (new URL(url).origin !== new URL(this.#base).origin) return this.#raw(method, url, send, undefined);
    let response = await this.#raw(method, url, send, this.#authorization);
    if (response.statusCode === 401) {
      const challenge = parseChallenge(header(response, "www-authenticate") ?? "");
      await drain(response);
      this.#authorization = await this.#authenticate(challenge, response.statusCode);
      response = await this.#raw(method, url, send, this.#authorization);
    }
    for (
      let hops = 0;
      hops < MAX_REDIRECTS && [301, 302, 303, 307, 308].includes(response.statusCode);
      hops++
    ) {
      const location = header(response, "location");
      if (!location || (method !== "GET" && method !== "HEAD")) break;
      await drain(response);
      const next = new URL(location, url).href;
      // Blob storage behind a redirect (S3, Azure) gets no registry credentials.
      const auth = new URL(next).origin === new URL(this.#base).origin ? this.#authorization : undefined;
      url = next;
      response = await this.#raw(method, url, {}, auth);
    }
    return response;
  }

  async #authenticate(challenge: Challenge | undefined, status: number): Promise<string> {
    if (challenge?.scheme === "basic") {
      if (!this.#credentials) throw this.#needsCredentials(status);
      const { username, password } = this.#credentials;
      return `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;
    }
    if (challenge?.scheme === "bearer" && challenge.params.realm) {
      return `Bearer ${await this.#token(challenge.params)}`;
    }
    throw new StoreError(
      StoreErrorCode.Denied,
      `the store ${this.location} asks for an authentication egp does not know (401 without a Basic or Bearer challenge)`,
      { status },
    );
  }

  #needsCredentials(status: number): StoreError {
    return new StoreError(
      StoreErrorCode.Denied,
      `the store ${this.location} needs credentials: set EGP_STORE_USERNAME and EGP_STORE_PASSWORD`,
      { status },
    );
  }

  /** The distribution specification's token flow: GET the realm with the service and scope. */
  async #token(params: Record<string, string>): Promise<string> {
    const realm = new URL(params.realm ?? "", this.#base);
    if (realm.protocol !== "https:" && !(realm.protocol === "http:" && this.#base.startsWith("http:"))) {
      throw new StoreError(
        StoreErrorCode.Denied,
        `the store ${this.location} sends its token server as ${realm.protocol}`,
      );
    }
    if (params.service) realm.searchParams.set("service", params.service);
    if (params.scope) realm.searchParams.set("scope", params.scope);
    const auth = this.#credentials
      ? `Basic ${Buffer.from(`${this.#credentials.username}:${this.#credentials.password}`).toString("base64")}`
      : undefined;
    const response = await this.#raw("GET", realm.href, {}, auth);
    if (response.statusCode === 401 && !this.#credentials) {
      await drain(response);
      throw this.#needsCredentials(401);
    }
    if (response.statusCode !== 200) throw await this.#failure(response, "the token server refused");
    let token: unknown;
    try {
      const body = JSON.parse((await bytesOf(response, 1024 * 1024)).toString("utf8")) as Record<
        string,
        unknown
      >;
      token = body.token ?? body.access_token;
    } catch (error) {
      throw new StoreError(
        StoreErrorCode.Unavailable,
        `the token server of ${this.location} answered no JSON`,
        {
          cause: error,
        },
      );
    }
    if (typeof token !== "string" || token === "" || /[\s]/.test(token)) {
      throw new StoreError(
        StoreErrorCode.Unavailable,
        `the token server of ${this.location} answered no token`,
      );
    }
    return token;
  }

  /** A StoreError from a response outside the protocol, with the registry's `errors[]`. */
  async #failure(response: Dispatcher.ResponseData, doing: string): Promise<StoreError> {
    const status = response.statusCode;
    let codes: string[] = [];
    let details = "";
    try {
      const body = JSON.parse((await bytesOf(response, 64 * 1024)).toString("utf8")) as {
        errors?: { code?: unknown; message?: unknown }[];
      };
      const errors = Array.isArray(body.errors) ? body.errors : [];
      codes = errors.map((error) => printable(String(error.code ?? "")));
      details = errors
        .map((error) => printable(`${String(error.code ?? "")}: ${String(error.message ?? "")}`))
        .join("; ");
    } catch {
      await drain(response);
    }
    const code =
      status === 401 || status === 403
        ? StoreErrorCode.Denied
        : status === 404
          ? StoreErrorCode.NotFound
          : codes.includes("DIGEST_INVALID")
            ? StoreErrorCode.DigestMismatch
            : StoreErrorCode.Unavailable;
    const why = details ? ` (${details})` : "";
    return new StoreError(code, `${doing} in the store ${this.location}: HTTP ${status}${why}`, {
      status,
      registryCodes: codes,
    });
  }

  #path(rest: string): string {
    return `/v2/${this.#repository}/${rest}`;
  }

  async putFile(path: string): Promise<{ digest: string; size: number }> {
    const { digest, size } = await sha256Of(path);
    if (!(await this.hasFile(digest))) {
      await this.#upload(digest, size, () => createReadStream(path));
    }
    return { digest, size };
  }

  async #putBytes(bytes: Buffer): Promise<string> {
    const digest = sha256(bytes);
    if (!(await this.hasFile(digest))) await this.#upload(digest, bytes.length, () => bytes);
    return digest;
  }

  /** A monolithic upload: POST for a session, then one PUT of the whole blob with its digest. */
  async #upload(digest: string, size: number, body: () => Buffer | Readable): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const failure = await this.#uploadOnce(digest, size, body).then(
        () => undefined,
        (error: unknown) => error,
      );
      if (failure === undefined) return;
      const passing =
        failure instanceof StoreError &&
        (this.#unreachable.has(failure) || RETRY_STATUSES.has(failure.status ?? 0));
      if (!passing || attempt >= MAX_ATTEMPTS) throw failure;
      await this.#sleep(retryDelay(attempt, undefined));
    }
  }

  async #uploadOnce(digest: string, size: number, body: () => Buffer | Readable): Promise<void> {
    const started = await this.#send("POST", this.#path("blobs/uploads/"), {
      headers: { "content-length": "0" },
    });
    const location = header(started, "location");
    if (started.statusCode !== 202 || !location)
      throw await this.#failure(started, `can't start an upload of sha256:${digest}`);
    await drain(started);
    const target = new URL(location, this.#url(this.#path("blobs/uploads/")));
    target.searchParams.set("digest", `sha256:${digest}`);
    const put = await this.#send("PUT", target.href, {
      headers: { "content-type": "application/octet-stream", "content-length": String(size) },
      body,
    });
    if (put.statusCode !== 201) throw await this.#failure(put, `can't store sha256:${digest}`);
    await drain(put);
  }

  async hasFile(digest: string): Promise<boolean> {
    return (await this.#blobSize(digest)) !== undefined;
  }

  async #blobSize(digest: string): Promise<number | undefined> {
    if (!SHA256.test(digest)) return undefined;
    const response = await this.#send("HEAD", this.#path(`blobs/sha256:${digest}`));
    await drain(response);
    if (response.statusCode === 404) return undefined;
    if (response.statusCode !== 200) throw await this.#failure(response, `can't check sha256:${digest}`);
    return Number(header(response, "content-length") ?? "0");
  }

  async getFile(digest: string, path: string): Promise<void> {
    if (!SHA256.test(digest)) {
      throw new StoreError(StoreErrorCode.NotFound, `not a sha256: ${JSON.stringify(digest)}`);
    }
    const response = await this.#send("GET", this.#path(`blobs/sha256:${digest}`));
    if (response.statusCode === 404) {
      await drain(response);
      throw new StoreError(
        StoreErrorCode.NotFound,
        `no file sha256:${digest} in the store ${this.location}`,
        {
          status: 404,
        },
      );
    }
    if (response.statusCode !== 200) throw await this.#failure(response, `can't read sha256:${digest}`);
    await mkdir(dirname(path), { recursive: true });
    const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      const hash = createHash("sha256");
      await pipeline(
        response.body,
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
          StoreErrorCode.Unavailable,
          `reading sha256:${digest} from the store ${this.location} broke off: ${printable(error.message)}`,
          { cause: error },
        );
      });
      const read = hash.digest("hex");
      if (read !== digest) {
        throw new StoreError(
          StoreErrorCode.DigestMismatch,
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
    await this.#putManifest(key, tag, body);
  }

  /**
   * A registry has no conditional write, so a record created once is checked, written, and read back
   * after a settle time: of two runs that both found the tag free, the later write stands and the
   * earlier writer reads another manifest and refuses. A run whose own check-to-write window reached
   * the settle time can't be sure no rival read its tag back in between, and says so.
   */
  async #createOnce(key: string, tag: string, body: Buffer): Promise<void> {
    const checked = Date.now();
    if (await this.#hasManifest(tag)) throw this.#exists(key);
    const refused = await this.#putManifest(key, tag, body, { once: true }).then(
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
        StoreErrorCode.Exists,
        `${key} was created by another run at the same time in the store ${this.location}; that one stands, this one is not kept`,
      );
    }
    if (window >= this.#settleMs) {
      throw new StoreError(
        StoreErrorCode.Unavailable,
        `creating ${key} in the store ${this.location} took ${window} ms from check to write, too long to be sure no other run created it at the same time; read it back before using it`,
      );
    }
  }

  #exists(key: string): StoreError {
    return new StoreError(StoreErrorCode.Exists, `${key} already exists in the store ${this.location}`);
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
          StoreErrorCode.NotFound,
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

  async #putManifest(
    key: string,
    tag: string,
    body: Buffer,
    options: { once?: boolean } = {},
  ): Promise<void> {
    const send = {
      headers: { "content-type": MANIFEST_TYPE, "content-length": String(body.length) },
      body: () => body,
    };
    const put = () =>
      // A create-once write is not retried on 5xx: a retry after a wait would widen its window.
      options.once
        ? this.#once("PUT", this.#path(`manifests/${tag}`), send)
        : this.#send("PUT", this.#path(`manifests/${tag}`), send);
    let response = await put();
    if (response.statusCode === 400) {
      const failure = await this.#failure(response, `can't store ${key}`);
      // Another writer pushing one of its blobs at the same moment: the blob is there a moment later.
      if (!failure.registryCodes.includes("MANIFEST_BLOB_UNKNOWN")) throw failure;
      await this.#sleep(BLOB_RACE_MS);
      response = await put();
    }
    if (response.statusCode !== 201) throw await this.#failure(response, `can't store ${key}`);
    await drain(response);
  }

  /** The digest of the manifest a tag names now, or undefined when there is none. */
  async #manifestDigest(tag: string): Promise<string | undefined> {
    const response = await this.#send("GET", this.#path(`manifests/${tag}`), {
      headers: { accept: MANIFEST_TYPE },
    });
    if (response.statusCode === 404) {
      await drain(response);
      return undefined;
    }
    if (response.statusCode !== 200) throw await this.#failure(response, `can't read the tag ${tag}`);
    return `sha256:${sha256(await bytesOf(response, MAX_RECORD_BYTES))}`;
  }

  async #hasManifest(tag: string): Promise<boolean> {
    const response = await this.#send("HEAD", this.#path(`manifests/${tag}`), {
      headers: { accept: MANIFEST_TYPE },
    });
    await drain(response);
    if (response.statusCode === 404) return false;
    if (response.statusCode !== 200) throw await this.#failure(response, `can't check the tag ${tag}`);
    return true;
  }

  async #manifest(tag: string, key: string): Promise<Manifest | undefined> {
    const response = await this.#send("GET", this.#path(`manifests/${tag}`), {
      headers: { accept: MANIFEST_TYPE },
    });
    if (response.statusCode === 404) {
      await drain(response);
      return undefined;
    }
    if (response.statusCode !== 200) throw await this.#failure(response, `can't read ${key}`);
    const bytes = await bytesOf(response, MAX_RECORD_BYTES);
    const said = header(response, "docker-content-digest");
    if (said?.startsWith("sha256:") && said !== `sha256:${sha256(bytes)}`) {
      throw new StoreError(
        StoreErrorCode.DigestMismatch,
        `the manifest of ${key} in the store ${this.location} does not have the digest the registry gives it`,
      );
    }
    try {
      return JSON.parse(bytes.toString("utf8")) as Manifest;
    } catch (error) {
      throw new StoreError(
        StoreErrorCode.Unavailable,
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
        StoreErrorCode.Unavailable,
        `the tag of ${key} in the store ${this.location} is not an egp record`,
      );
    }
    const response = await this.#send("GET", this.#path(`blobs/sha256:${digest}`));
    if (response.statusCode !== 200) throw await this.#failure(response, `can't read ${key}`);
    const bytes = await bytesOf(response, MAX_RECORD_BYTES);
    if (sha256(bytes) !== digest) {
      throw new StoreError(
        StoreErrorCode.DigestMismatch,
        `the record ${key} (sha256:${digest}) in the store ${this.location} was altered; egp does not use it`,
      );
    }
    try {
      return JSON.parse(bytes.toString("utf8"));
    } catch (error) {
      throw new StoreError(StoreErrorCode.Unavailable, `${key} in the store ${this.location} is not JSON`, {
        cause: error,
      });
    }
  }

  async listRecords(prefix: string): Promise<string[]> {
    checkKey(prefix);
    const found: string[] = [];
    const tagPrefix = tagPrefixOf(prefix);
    for await (const tag of this.#tags()) {
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

  /** Every tag of the repository, page by page (`n`, `last`, and the Link header). */
  async *#tags(): AsyncGenerator<string> {
    let next: string | undefined = this.#path(`tags/list?n=${this.#pageSize}`);
    while (next) {
      const response: Dispatcher.ResponseData = await this.#send("GET", next);
      // A repository nothing was pushed to yet has no tags.
      if (response.statusCode === 404) {
        await drain(response);
        return;
      }
      if (response.statusCode !== 200) throw await this.#failure(response, "can't list the tags");
      const link = nextLink(header(response, "link"));
      const text = (await bytesOf(response, MAX_RECORD_BYTES)).toString("utf8");
      let body: { tags?: unknown };
      try {
        body = JSON.parse(text) as { tags?: unknown };
      } catch (error) {
        throw new StoreError(StoreErrorCode.Unavailable, `the tag list of ${this.location} is not JSON`, {
          cause: error,
        });
      }
      const tags = Array.isArray(body.tags)
        ? body.tags.filter((tag): tag is string => typeof tag === "string")
        : [];
      yield* tags;
      next = link;
    }
  }
}

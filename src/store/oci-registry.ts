import type { Readable } from "node:stream";
import type { Dispatcher } from "undici";
import { StoreError } from "./store-error.ts";

/*
 * The distribution specification's HTTP API for one repository, over undici: requests with retries,
 * redirects, the 401 challenge (Basic, or the token flow), blobs (HEAD, GET, monolithic upload),
 * manifests (HEAD, GET, PUT) and the paged tag list, with the registry's errors mapped to StoreError.
 * It knows nothing of what egp keeps in the repository (oci-store.ts).
 */

export const MANIFEST_TYPE = "application/vnd.oci.image.manifest.v1+json";

// From the distribution specification: path components of a repository name.
const REPOSITORY = /^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*)*$/;
const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9a-fA-F:.]+\])(?::\d{1,5})?$/;
const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/;
const MAX_REDIRECTS = 5;
const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);
const BLOB_RACE_MS = 200;
const MAX_ATTEMPTS = 4;
const MAX_WAIT_MS = 30_000;
const MAX_TAG_LIST_BYTES = 16 * 1024 * 1024;

export interface OciReference {
  /** `host[:port]`, as written. */
  host: string;
  repository: string;
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

export interface OciRegistryOptions {
  reference: OciReference;
  /** HTTP instead of HTTPS; always so for localhost and 127.0.0.1. */
  plainHttp?: boolean;
  /** For basic auth, and for the token server of the bearer flow; anonymous without them. */
  credentials?: OciCredentials;
  /** Tags asked for per page of the tag list (the registry may give fewer). */
  pageSize?: number;
  /** Waits before a retry; tests record instead of sleeping. */
  sleep?: (ms: number) => Promise<void>;
}

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

/** A registry's words go into our messages: no control characters, and not a page of them. */
export const printable = (text: string) => text.replace(/[\p{Cc}]/gu, " ").slice(0, 300);

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
      throw new StoreError("EGP_STORE_UNAVAILABLE", `the registry's answer is larger than ${limit} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** A manifest as read: its bytes and the digest the registry gives it, if any. */
export interface ManifestRead {
  bytes: Buffer;
  digest: string | undefined;
}

/** One repository of a registry. Digests are written `sha256:<hex>`. */
export class OciRegistry {
  /** `oci://host[:port]/repository`, for messages. */
  readonly location: string;
  /** `https://host[:port]` (or http: for localhost or plainHttp). */
  readonly endpoint: string;
  readonly #repository: string;
  readonly #credentials: OciCredentials | undefined;
  readonly #pageSize: number;
  readonly #sleep: (ms: number) => Promise<void>;
  // Errors of the connection itself (refused, reset, timed out), which a retry may get past.
  readonly #unreachable = new WeakSet<Error>();
  #authorization: string | undefined;
  #agent: Promise<Dispatcher & { close(): Promise<void> }> | undefined;

  constructor(options: OciRegistryOptions) {
    const { host, repository } = options.reference;
    const plain = options.plainHttp === true || LOOPBACK.test(host.replace(/:\d+$/, ""));
    this.endpoint = `${plain ? "http" : "https"}://${host}`;
    this.location = `oci://${host}/${repository}`;
    this.#repository = repository;
    this.#credentials = options.credentials;
    this.#pageSize = options.pageSize ?? 1000;
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Closes the connections kept open to the registry. */
  async close(): Promise<void> {
    const agent = this.#agent;
    this.#agent = undefined;
    if (agent) await (await agent).close();
  }

  /** The size of a blob, or undefined when the repository has none by that digest. */
  async blobSize(digest: string): Promise<number | undefined> {
    const response = await this.#send("HEAD", this.#path(`blobs/${digest}`));
    await drain(response);
    if (response.statusCode === 404) return undefined;
    if (response.statusCode !== 200) throw await this.#failure(response, `can't check ${digest}`);
    return Number(header(response, "content-length") ?? "0");
  }

  /** A blob's bytes as they come, or undefined on 404; `doing` names the read in a failure. */
  async openBlob(digest: string, doing: string): Promise<Readable | undefined> {
    const response = await this.#send("GET", this.#path(`blobs/${digest}`));
    if (response.statusCode === 404) {
      await drain(response);
      return undefined;
    }
    if (response.statusCode !== 200) throw await this.#failure(response, doing);
    return response.body;
  }

  /** A whole blob of at most `limit` bytes; any answer but 200 (404 too) is a failure of `doing`. */
  async readBlob(digest: string, limit: number, doing: string): Promise<Buffer> {
    const response = await this.#send("GET", this.#path(`blobs/${digest}`));
    if (response.statusCode !== 200) throw await this.#failure(response, doing);
    return bytesOf(response, limit);
  }

  /**
   * A monolithic upload: POST for a session, then one PUT of the whole blob with its digest. The
   * whole upload is started again on a passing failure, since the session may be used up.
   */
  async uploadBlob(digest: string, size: number, body: () => Buffer | Readable): Promise<void> {
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
      throw await this.#failure(started, `can't start an upload of ${digest}`);
    await drain(started);
    const target = new URL(location, this.#url(this.#path("blobs/uploads/")));
    target.searchParams.set("digest", digest);
    const put = await this.#send("PUT", target.href, {
      headers: { "content-type": "application/octet-stream", "content-length": String(size) },
      body,
    });
    if (put.statusCode !== 201) throw await this.#failure(put, `can't store ${digest}`);
    await drain(put);
  }

  /** Whether a tag (or digest) names an image manifest. */
  async hasManifest(reference: string): Promise<boolean> {
    const response = await this.#send("HEAD", this.#path(`manifests/${reference}`), {
      headers: { accept: MANIFEST_TYPE },
    });
    await drain(response);
    if (response.statusCode === 404) return false;
    if (response.statusCode !== 200) throw await this.#failure(response, `can't check the tag ${reference}`);
    return true;
  }

  /** The image manifest a tag names (at most `limit` bytes), or undefined when there is none. */
  async getManifest(reference: string, limit: number, doing: string): Promise<ManifestRead | undefined> {
    const response = await this.#send("GET", this.#path(`manifests/${reference}`), {
      headers: { accept: MANIFEST_TYPE },
    });
    if (response.statusCode === 404) {
      await drain(response);
      return undefined;
    }
    if (response.statusCode !== 200) throw await this.#failure(response, doing);
    const bytes = await bytesOf(response, limit);
    return { bytes, digest: header(response, "docker-content-digest") };
  }

  /**
   * Tags an image manifest. `retry: false` tries once, without the retries on 429 and 5xx, for a
   * caller whose write must not be late; a manifest naming a blob another writer is still pushing
   * is tried once more a moment later either way.
   */
  async putManifest(tag: string, body: Buffer, options: { doing: string; retry?: boolean }): Promise<void> {
    const send = {
      headers: { "content-type": MANIFEST_TYPE, "content-length": String(body.length) },
      body: () => body,
    };
    const path = this.#path(`manifests/${tag}`);
    const put = () =>
      options.retry === false ? this.#once("PUT", path, send) : this.#send("PUT", path, send);
    let response = await put();
    if (response.statusCode === 400) {
      const failure = await this.#failure(response, options.doing);
      if (!failure.registryCodes.includes("MANIFEST_BLOB_UNKNOWN")) throw failure;
      await this.#sleep(BLOB_RACE_MS);
      response = await put();
    }
    if (response.statusCode !== 201) throw await this.#failure(response, options.doing);
    await drain(response);
  }

  /** Every tag of the repository, page by page (`n`, `last`, and the Link header). */
  async *tags(): AsyncGenerator<string> {
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
      const text = (await bytesOf(response, MAX_TAG_LIST_BYTES)).toString("utf8");
      let body: { tags?: unknown };
      try {
        body = JSON.parse(text) as { tags?: unknown };
      } catch (error) {
        throw new StoreError("EGP_STORE_UNAVAILABLE", `the tag list of ${this.location} is not JSON`, {
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

  #dispatcher(): Promise<Dispatcher & { close(): Promise<void> }> {
    // undici is loaded when a store is used: most commands never open one.
    this.#agent ??= import("undici").then(({ Agent }) => new Agent());
    return this.#agent;
  }

  #url(path: string): string {
    return new URL(path, this.endpoint).href;
  }

  #path(rest: string): string {
    return `/v2/${this.#repository}/${rest}`;
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
        "EGP_STORE_UNAVAILABLE",
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
    if (new URL(url).origin !== new URL(this.endpoint).origin) return this.#raw(method, url, send, undefined);
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
      const auth = new URL(next).origin === new URL(this.endpoint).origin ? this.#authorization : undefined;
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
      "EGP_STORE_DENIED",
      `the store ${this.location} asks for an authentication egp does not know (401 without a Basic or Bearer challenge)`,
      { status },
    );
  }

  #needsCredentials(status: number): StoreError {
    return new StoreError(
      "EGP_STORE_DENIED",
      `the store ${this.location} needs credentials: set EGP_STORE_USERNAME and EGP_STORE_PASSWORD`,
      { status },
    );
  }

  /** The distribution specification's token flow: GET the realm with the service and scope. */
  async #token(params: Record<string, string>): Promise<string> {
    const realm = new URL(params.realm ?? "", this.endpoint);
    if (realm.protocol !== "https:" && !(realm.protocol === "http:" && this.endpoint.startsWith("http:"))) {
      throw new StoreError(
        "EGP_STORE_DENIED",
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
      throw new StoreError("EGP_STORE_UNAVAILABLE", `the token server of ${this.location} answered no JSON`, {
        cause: error,
      });
    }
    if (typeof token !== "string" || token === "" || /[\s]/.test(token)) {
      throw new StoreError("EGP_STORE_UNAVAILABLE", `the token server of ${this.location} answered no token`);
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
        ? "EGP_STORE_DENIED"
        : status === 404
          ? "EGP_STORE_NOT_FOUND"
          : codes.includes("DIGEST_INVALID")
            ? "EGP_STORE_DIGEST_MISMATCH"
            : "EGP_STORE_UNAVAILABLE";
    const why = details ? ` (${details})` : "";
    return new StoreError(code, `${doing} in the store ${this.location}: HTTP ${status}${why}`, {
      status,
      registryCodes: codes,
    });
  }
}

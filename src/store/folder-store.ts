import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { access, link, mkdir, open, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { pipeline } from "node:stream/promises";
import { parseRecord } from "./record-json.ts";
import { KEY_SEGMENT, type PutRecordOptions, type ReleaseStore } from "./store.ts";
import { StoreError } from "./store-error.ts";

/*
 * A store in a folder: a local path, or a share mounted on every machine that promotes.
 * `blobs/sha256/<hex>` holds the files, `records/<key>.json` the records. Every write goes to a
 * temp file in the same folder and is renamed into place, so a reader sees the old file or the new
 * one; a record created once is hard-linked into place, which fails when the name is taken.
 */

const SHA256 = /^[0-9a-f]{64}$/;

export function checkKey(key: string): string[] {
  const segments = key.split("/");
  for (const segment of segments) {
    if (!KEY_SEGMENT.test(segment)) {
      throw new StoreError("EGP_STORE_LOCATION", `not a store key: ${JSON.stringify(key)}`);
    }
  }
  return segments;
}

function checkDigest(digest: string): void {
  if (!SHA256.test(digest))
    throw new StoreError("EGP_STORE_NOT_FOUND", `not a sha256: ${JSON.stringify(digest)}`);
}

/** A file's sha256 and size, read as a stream (both stores address blobs by it). */
export async function sha256Of(path: string): Promise<{ digest: string; size: number }> {
  const hash = createHash("sha256");
  let size = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { digest: hash.digest("hex"), size };
}

function existing(key: string, location: string) {
  return (error: NodeJS.ErrnoException): never => {
    if (error.code === "EEXIST")
      throw new StoreError("EGP_STORE_EXISTS", `${key} already exists in the store ${location}`);
    throw error;
  };
}

const tempBeside = (path: string) => `${path}.${randomBytes(6).toString("hex")}.tmp`;

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/** A store's folders and files: private for the default store under `.egp/`, the umask's for a shared one. */
interface Modes {
  dir?: number;
  file?: number;
}

/** Where a store file is copied out to (the artifact cache): readable by this user only. */
const PRIVATE_COPY = 0o600;

export class FolderStore implements ReleaseStore {
  readonly location: string;
  readonly #root: string;
  readonly #modes: Modes;

  /** `private`: the store is this user's alone (the default, under `.egp/`): folders 0700, files 0600. */
  constructor(root: string, options: { private?: boolean } = {}) {
    this.#root = root;
    this.location = root;
    this.#modes = options.private ? { dir: 0o700, file: 0o600 } : {};
  }

  async #mkdir(folder: string): Promise<void> {
    await mkdir(folder, { recursive: true, ...(this.#modes.dir ? { mode: this.#modes.dir } : {}) });
  }

  #blob(digest: string): string {
    checkDigest(digest);
    return join(this.#root, "blobs", "sha256", digest);
  }

  #record(key: string): string {
    return `${join(this.#root, "records", ...checkKey(key))}.json`;
  }

  async putFile(path: string): Promise<{ digest: string; size: number }> {
    const { digest, size } = await sha256Of(path);
    const target = this.#blob(digest);
    if (await exists(target)) return { digest, size };
    await this.#mkdir(dirname(target));
    const temp = tempBeside(target);
    try {
      await pipeline(createReadStream(path), createWriteStream(temp, { mode: this.#modes.file }));
      const copied = await sha256Of(temp);
      if (copied.digest !== digest) {
        throw new StoreError("EGP_STORE_DIGEST_MISMATCH", `${path} changed while it was stored`);
      }
      await rename(temp, target);
    } finally {
      await rm(temp, { force: true });
    }
    return { digest, size };
  }

  async getFile(digest: string, path: string): Promise<void> {
    const source = this.#blob(digest);
    if (!(await exists(source))) {
      throw new StoreError("EGP_STORE_NOT_FOUND", `no file sha256:${digest} in the store ${this.location}`);
    }
    await mkdir(dirname(path), { recursive: true });
    const temp = tempBeside(path);
    try {
      await pipeline(createReadStream(source), createWriteStream(temp, { mode: PRIVATE_COPY }));
      const read = await sha256Of(temp);
      if (read.digest !== digest) {
        throw new StoreError(
          "EGP_STORE_DIGEST_MISMATCH",
          `the store's file sha256:${digest} reads as sha256:${read.digest}: it was altered; egp does not use it`,
        );
      }
      await rename(temp, path);
    } finally {
      await rm(temp, { force: true });
    }
  }

  async hasFile(digest: string): Promise<boolean> {
    return exists(this.#blob(digest));
  }

  async putRecord(key: string, value: unknown, options: PutRecordOptions = {}): Promise<void> {
    const target = this.#record(key);
    await this.#mkdir(dirname(target));
    const body = `${JSON.stringify(value, null, 2)}\n`;
    const temp = tempBeside(target);
    try {
      const handle = await open(temp, "wx", this.#modes.file);
      try {
        await handle.writeFile(body);
        await handle.sync();
      } finally {
        await handle.close();
      }
      // A record appears under its name only whole: a crash or a full disk leaves a temp file.
      if (options.createOnly) await link(temp, target).catch(existing(key, this.location));
      else await rename(temp, target);
    } finally {
      await rm(temp, { force: true });
    }
  }

  async getRecord(key: string): Promise<unknown> {
    const path = this.#record(key);
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    return parseRecord(text, key, this.location);
  }

  async listRecords(prefix: string): Promise<string[]> {
    const base = join(this.#root, "records", ...checkKey(prefix));
    const found: string[] = [];
    const walk = async (folder: string): Promise<void> => {
      let entries: import("node:fs").Dirent[];
      try {
        entries = await readdir(folder, { withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
        throw error;
      }
      for (const entry of entries) {
        const path = join(folder, entry.name);
        if (entry.isDirectory()) await walk(path);
        else if (entry.isFile() && entry.name.endsWith(".json")) {
          found.push(
            relative(join(this.#root, "records"), path).slice(0, -".json".length).split(sep).join("/"),
          );
        }
      }
    };
    if ((await stat(base).catch(() => undefined))?.isDirectory()) await walk(base);
    return found.sort();
  }
}

import { createHash } from "node:crypto";
import { closeSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { deserialize, serialize } from "node:v8";
import { type LocalKey, localKey } from "../io/local-key.ts";
import { assertPrivateFile, PRIVATE_FILE_MODE, privateDir } from "../io/private-dir.ts";
import { isTracked } from "../io/tracked.ts";
import type { ManifestIssue } from "./errors.ts";
import { bytesOf, type RepositoryFile } from "./file-bytes.ts";
import type { StoredDocument } from "./yaml-events.ts";

/*
 * The manifest cache (`.egp/cache/manifests/`): per manifest file, its parsed documents (values and
 * the offsets that locate their fields) and, for each document that its schema and rules passed
 * without a word, what the schema gave. A warm plan skips the YAML parse and the validation of
 * unchanged files; normalization and `${VAR}` substitution run on every load, after the cache, so a
 * substituted value is never in it (a document that names a variable keeps only its parse, with the
 * reference as written).
 *
 * An entry is used only for the same file path, the same bytes (sha256), and the same egp: its
 * version and a hash of the code that parses and validates manifests (`codeFingerprint`). Anything
 * else (a truncated file, another format, another egp, a shape it does not expect) is a miss, and
 * the entry is written again. Why v8 serialization: it keeps shared key lists shared, and reads a
 * large file faster than JSON.parse.
 *
 * Beside them (`.egp/cache/states/`), one entry per environment: its normalized documents and the
 * warnings their load gave, under a key of every manifest and environment file's path and bytes and
 * the load's options (load.ts decides when a state may be kept: never one holding a substituted value).
 * A warm plan of an unchanged repository then reads one file instead of parsing and normalizing.
 */

const MAGIC = Buffer.from("egp manifest cache 3\n");

/** What the cache holds of one file. `data[i]`: the validated form of `documents[i]`, when kept. */
export interface CachedFile {
  documents: StoredDocument[];
  data: unknown[];
}

interface Entry extends CachedFile {
  fingerprint: string;
  path: string;
  sha256: string;
}

export interface CacheStats {
  /** Files whose entry was used. */
  hits: number;
  /** Files with no usable entry: none, another file's bytes, another egp. */
  misses: number;
  /** Entries that could not be read as one (corrupt, truncated, foreign): ignored, then rewritten. */
  rejected: number;
  /** Entries written by `save`. */
  written: number;
  /** Documents whose validation came from the cache (the others were validated again). */
  validated: number;
  /** Environments whose normalized state came from the cache. */
  states: number;
  /** Environment states written by `save`. */
  statesWritten: number;
}

/** What the cache holds of one environment (load.ts): its documents as normalized, and their warnings. */
export interface CachedState {
  documents: unknown[];
  warnings: ManifestIssue[];
  /** How many manifest documents the load validated. */
  count: number;
}

/** A state's entry as written: its header, then its documents in slices (`STATE_SLICE` each). */
interface StateHeader {
  fingerprint: string;
  env: string;
  key: string;
  count: number;
  warnings: ManifestIssue[];
  /** The state's Package documents, also among its documents: a plan starts their reads from them. */
  packages: unknown[];
  slices: number;
}

interface StateEntry extends CachedState {
  fingerprint: string;
  env: string;
  key: string;
}

/** A state being read in slices (`openState`): its packages at once, its documents when read. */
export interface StateRead {
  packages: unknown[];
  state: Promise<CachedState | undefined>;
}

const STATE_MAGIC = Buffer.from("egp state cache 3\n");
/** Documents per slice: a slice is read in about 15 ms, between which the process answers its reads. */
const STATE_SLICE = 1000;

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** A file's sha256: the key its entry is kept under, with its path and egp's fingerprint. */
const fileSha256 = (file: RepositoryFile) => createHash("sha256").update(bytesOf(file)).digest("hex");

/** The folders whose code decides what a parsed and validated document is. */
const CODE_FOLDERS = ["manifest", "schema", "wire"];
const CODE_FILE = /\.(?:ts|js)$/;

let fingerprint: string | undefined;

/**
 * egp's version and a hash of its manifest, schema and wire code (src/ in a checkout, dist/ in a
 * package): a checkout keeps its version between commits, and mtimes change with every clone (the
 * CI's cache outlives them), so the code's bytes are what tells one egp from another.
 */
export function codeFingerprint(): string {
  if (fingerprint) return fingerprint;
  const root = dirname(dirname(fileURLToPath(import.meta.url)));
  const hash = createHash("sha256");
  const pkg = JSON.parse(readFileSync(join(root, "..", "package.json"), "utf8")) as { version?: string };
  hash.update(`egp ${pkg.version ?? ""}\0`);
  for (const folder of CODE_FOLDERS) {
    const files = readdirSync(join(root, folder), { recursive: true, encoding: "utf8" })
      .filter((file) => CODE_FILE.test(file) && !file.includes(".test."))
      .sort();
    for (const file of files)
      hash.update(`${folder}/${file}\0`).update(readFileSync(join(root, folder, file)));
  }
  fingerprint = hash.digest("hex");
  return fingerprint;
}

function isEntry(value: unknown): value is Entry {
  if (value === null || typeof value !== "object") return false;
  const entry = value as Partial<Entry>;
  return (
    typeof entry.fingerprint === "string" &&
    typeof entry.path === "string" &&
    typeof entry.sha256 === "string" &&
    Array.isArray(entry.documents) &&
    Array.isArray(entry.data) &&
    entry.documents.every(isStoredDocument)
  );
}

function isStateHeader(value: unknown): value is StateHeader {
  if (value === null || typeof value !== "object") return false;
  const header = value as Partial<StateHeader>;
  return (
    typeof header.fingerprint === "string" &&
    typeof header.env === "string" &&
    typeof header.key === "string" &&
    Number.isInteger(header.count) &&
    Number.isInteger(header.slices) &&
    Array.isArray(header.warnings) &&
    Array.isArray(header.packages)
  );
}

const isDocumentList = (value: unknown): value is unknown[] =>
  Array.isArray(value) && value.every((document) => document !== null && typeof document === "object");

/** Adds a state slice's documents; false when the slice is not a list of documents. */
function addSlice(documents: unknown[], frame: Buffer): boolean {
  const slice = deserializeOr(frame);
  if (!isDocumentList(slice)) return false;
  documents.push(...slice);
  return true;
}

/** An entry that is not there is no entry; any other failure to read it is the caller's. */
function missing(error: unknown): undefined {
  if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
  throw error;
}

/*
 * Every entry is sealed: its mark, an HMAC under the user's local key (docs/security.md) of the
 * sha256 of what follows, then that. A byte changed anywhere (a disk, a cache restored half-way, a
 * hand) fails the check, and so does an entry sealed anywhere else (a repository's tree, another
 * user's machine): the entry is not used. A plain hash would let whoever can put a file in `.egp/`
 * decide what a plan believes the manifests say.
 */
const SEAL_BYTES = 32;
const SEAL_PURPOSE = "egp manifest cache";

const sealOf = (key: LocalKey, digest: Buffer) => Buffer.from(key.seal(digest, SEAL_PURPOSE), "hex");

/** What a sealed entry holds, or undefined when its mark or its seal is not right. */
function unsealed(bytes: Buffer, magic: Buffer, key: LocalKey | undefined): Buffer | undefined {
  const start = magic.length + SEAL_BYTES;
  if (!key) return undefined;
  if (bytes.length < start || !bytes.subarray(0, magic.length).equals(magic)) return undefined;
  const body = bytes.subarray(start);
  const digest = createHash("sha256").update(body).digest();
  const seal = bytes.subarray(magic.length, start).toString("hex");
  return key.check(digest, seal, SEAL_PURPOSE) ? body : undefined;
}

/** The frames of a state entry's body (a 4-byte length, then that many bytes), or undefined when cut short. */
function framesOf(bytes: Buffer): Buffer[] | undefined {
  const frames: Buffer[] = [];
  for (let at = 0; at < bytes.length; ) {
    if (at + 4 > bytes.length) return undefined;
    const end = at + 4 + bytes.readUInt32LE(at);
    if (end > bytes.length) return undefined;
    frames.push(bytes.subarray(at + 4, end));
    at = end;
  }
  return frames;
}

function deserializeOr(bytes: Buffer | undefined): unknown {
  if (!bytes) return undefined;
  try {
    return deserialize(bytes);
  } catch {
    return undefined;
  }
}

/** A state entry's frames, each made when it is written: a slice's bytes are garbage before the next's. */
function* stateFrames(entry: StateEntry): Generator<Buffer> {
  const { documents, ...rest } = entry;
  const slices = Math.ceil(documents.length / STATE_SLICE);
  const packages = documents.filter((document) => (document as { kind?: unknown }).kind === "Package");
  const header: StateHeader = { ...rest, packages, slices };
  const frame = (bytes: Buffer) => [lengthOf(bytes), bytes];
  yield* frame(serialize(header));
  for (let at = 0; at < documents.length; at += STATE_SLICE)
    yield* frame(serialize(documents.slice(at, at + STATE_SLICE)));
}

function lengthOf(frame: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32LE(frame.length);
  return length;
}

function isStoredDocument(value: unknown): value is StoredDocument {
  if (value === null || typeof value !== "object") return false;
  const stored = value as Partial<StoredDocument>;
  const names = stored.names;
  const offsets = stored.offsets;
  return (
    Number.isInteger(stored.index) &&
    Number.isInteger(stored.start) &&
    Number.isInteger(stored.chunkStart) &&
    Number.isInteger(stored.chunkEnd) &&
    Number.isInteger(stored.event) &&
    (names === null ||
      (Array.isArray(names) && Array.isArray(offsets) && offsets.length === 2 * names.length))
  );
}

/** The manifest cache of one repository; `lookup` and `remember` during a load, `save` after it. */
export interface ManifestCacheOptions {
  /** Called before the first write, with the state folder (the CLI makes it with its `.gitignore`). */
  prepare?: (stateDir: string) => void;
  /** Plays another egp (tests); `codeFingerprint()` by default. */
  fingerprint?: string;
  /** The key entries are sealed with; the user's local key by default. */
  key?: LocalKey;
}

export class ManifestCache {
  readonly stateDir: string;
  /** `<stateDir>/cache/manifests`: one file per manifest file. */
  readonly folder: string;
  /** `<stateDir>/cache/states`: one file per environment. */
  readonly statesFolder: string;
  readonly stats: CacheStats = {
    hits: 0,
    misses: 0,
    rejected: 0,
    written: 0,
    validated: 0,
    states: 0,
    statesWritten: 0,
  };
  private readonly fingerprint: string;
  private readonly prepare: ((stateDir: string) => void) | undefined;
  private readonly keyGiven: LocalKey | undefined;
  private readonly pending = new Map<string, Entry>();
  private readonly pendingStates = new Map<string, StateEntry>();

  /** `stateDir`: the repository's `.egp`. */
  constructor(stateDir: string, options: ManifestCacheOptions = {}) {
    this.stateDir = stateDir;
    this.folder = join(stateDir, "cache", "manifests");
    this.statesFolder = join(stateDir, "cache", "states");
    this.fingerprint = options.fingerprint ?? codeFingerprint();
    this.prepare = options.prepare;
    this.keyGiven = options.key;
  }

  /**
   * Taken when first needed: a run that finds no entry and writes none never makes the key. A key
   * that can't be made (a home folder egp may not write) leaves the cache cold, as an unwritable
   * `.egp/` does; an unsafe key file is refused (`EGP_LOCAL_KEY_UNUSABLE`).
   */
  private get key(): LocalKey | undefined {
    if (this.keyGiven) return this.keyGiven;
    try {
      return localKey();
    } catch (error) {
      if (typeof (error as NodeJS.ErrnoException).syscall === "string") return undefined;
      throw error;
    }
  }

  private fileOf(path: string): string {
    return join(this.folder, `${sha256(path).slice(0, 32)}.bin`);
  }

  /** The entry of this file, when it was made from these very bytes by this egp. */
  lookup(file: RepositoryFile): CachedFile | undefined {
    const entry = this.read(this.fileOf(file.path), isEntry);
    if (
      entry &&
      entry.fingerprint === this.fingerprint &&
      entry.path === file.path &&
      entry.sha256 === fileSha256(file) &&
      entry.documents.every((document) => document.chunkEnd <= file.text.length)
    ) {
      this.stats.hits += 1;
      return entry;
    }
    this.stats.misses += 1;
    return undefined;
  }

  private stateFileOf(env: string): string {
    return join(this.statesFolder, `${sha256(env).slice(0, 32)}.bin`);
  }

  /** The state of environment `env`, when kept under this very key by this egp. */
  lookupState(env: string, key: string): CachedState | undefined {
    const opened = this.stateHeader(this.readBytes(this.stateFileOf(env)), env, key);
    if (!opened) return undefined;
    const documents: unknown[] = [];
    for (const frame of opened.slices) if (!addSlice(documents, frame)) return this.rejectState();
    this.stats.states += 1;
    return { documents, warnings: opened.header.warnings, count: opened.header.count };
  }

  /**
   * `lookupState` in slices: the file is read off the main thread, its packages are given at once,
   * and its documents are read a slice at a time, letting the process answer what it has on the
   * wire between them. The state is counted in `stats` when it is used (load.ts).
   */
  async openState(env: string, key: string): Promise<StateRead | undefined> {
    const path = this.stateFileOf(env);
    let bytes: Buffer | undefined;
    try {
      assertPrivateFile(path);
      bytes = await readFile(path);
    } catch (error) {
      bytes = missing(error);
    }
    if (bytes && this.isTracked(path)) bytes = this.rejectState();
    const opened = this.stateHeader(bytes, env, key);
    if (!opened) return undefined;
    const read = async (): Promise<CachedState | undefined> => {
      const documents: unknown[] = [];
      for (const frame of opened.slices) {
        await new Promise((resolve) => setImmediate(resolve));
        if (!addSlice(documents, frame)) return this.rejectState();
      }
      return { documents, warnings: opened.header.warnings, count: opened.header.count };
    };
    return { packages: opened.header.packages, state: read() };
  }

  /** A state entry's header and slices, when it is this egp's entry for `env` under `key`. */
  private stateHeader(
    bytes: Buffer | undefined,
    env: string,
    key: string,
  ): { header: StateHeader; slices: Buffer[] } | undefined {
    if (!bytes) return undefined;
    const body = unsealed(bytes, STATE_MAGIC, this.key);
    const frames = body && framesOf(body);
    const header = deserializeOr(frames?.[0]);
    if (!frames || !isStateHeader(header) || header.slices !== frames.length - 1) return this.rejectState();
    if (header.fingerprint !== this.fingerprint || header.env !== env || header.key !== key) return undefined;
    return { header, slices: frames.slice(1) };
  }

  private rejectState(): undefined {
    this.stats.rejected += 1;
    return undefined;
  }

  /** Keeps an environment's state under `key`, to be written by `save`. */
  rememberState(env: string, key: string, state: CachedState): void {
    this.pendingStates.set(env, { fingerprint: this.fingerprint, env, key, ...state });
  }

  /** An entry git tracks was committed by someone, not written here: it is ignored, whatever its seal. */
  private isTracked(path: string): boolean {
    return isTracked(this.stateDir, path);
  }

  private readBytes(path: string): Buffer | undefined {
    let bytes: Buffer | undefined;
    try {
      assertPrivateFile(path);
      bytes = readFileSync(path);
    } catch (error) {
      return missing(error);
    }
    if (!this.isTracked(path)) return bytes;
    this.stats.rejected += 1;
    return undefined;
  }

  private read<T>(path: string, valid: (value: unknown) => value is T): T | undefined {
    const bytes = this.readBytes(path);
    if (!bytes) return undefined;
    const value = deserializeOr(unsealed(bytes, MAGIC, this.key));
    if (valid(value)) return value;
    this.stats.rejected += 1;
    return undefined;
  }

  /** Keeps what a load parsed and validated of this file, to be written by `save`. */
  remember(file: RepositoryFile, cached: CachedFile): void {
    this.pending.set(file.path, {
      fingerprint: this.fingerprint,
      path: file.path,
      sha256: fileSha256(file),
      documents: cached.documents,
      data: cached.data,
    });
  }

  /**
   * Writes the entries remembered, each whole or not at all (a temporary file renamed over the
   * old one), in a private folder. A folder that is a link or another user's is refused
   * (`UnsafeStateError`), as the rest of `.egp/` is; a folder egp may not write (a read-only
   * checkout) only leaves the cache cold.
   */
  save(): void {
    if (this.pending.size === 0 && this.pendingStates.size === 0) return;
    try {
      this.prepare?.(this.stateDir);
      if (this.pending.size > 0) privateDir(this.stateDir, this.folder);
      if (this.pendingStates.size > 0) privateDir(this.stateDir, this.statesFolder);
    } catch (error) {
      if (!isUnwritable(error)) throw error;
      this.pending.clear();
      this.pendingStates.clear();
      return;
    }
    for (const [path, entry] of this.pending)
      if (this.write(this.fileOf(path), MAGIC, [serialize(entry)])) this.stats.written += 1;
    for (const [env, entry] of this.pendingStates)
      if (this.write(this.stateFileOf(env), STATE_MAGIC, stateFrames(entry))) this.stats.statesWritten += 1;
    this.pending.clear();
    this.pendingStates.clear();
  }

  /** One entry, whole or not at all; false when the folder can't be written (the cache stays cold). */
  private write(target: string, magic: Buffer, parts: Iterable<Buffer>): boolean {
    const temporary = `${target}.${process.pid}.tmp`;
    const key = this.key;
    if (!key) return false;
    try {
      assertPrivateFile(target);
      // Written part by part as the parts are made, never joined: an entry is megabytes, and holding
      // it whole would add to the plan's peak. The seal goes in its place once every part is hashed.
      const fd = openSync(temporary, "w", PRIVATE_FILE_MODE);
      try {
        writeAll(fd, magic);
        writeAll(fd, Buffer.alloc(SEAL_BYTES));
        const seal = createHash("sha256");
        for (const part of parts) {
          seal.update(part);
          writeAll(fd, part);
        }
        writeAll(fd, sealOf(key, seal.digest()), magic.length);
      } finally {
        closeSync(fd);
      }
      renameSync(temporary, target);
      return true;
    } catch (error) {
      rmSync(temporary, { force: true });
      if (!isUnwritable(error)) throw error;
      return false;
    }
  }
}

/** Writes all of `bytes`, at the file's position or at `position`. */
function writeAll(fd: number, bytes: Buffer, position?: number): void {
  for (let at = 0; at < bytes.length; ) {
    const where = position === undefined ? null : position + at;
    at += writeSync(fd, bytes, at, bytes.length - at, where);
  }
}

function isUnwritable(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "EACCES" || code === "EROFS" || code === "EPERM" || code === "ENOSPC";
}

import {
  closeSync,
  existsSync,
  fchmodSync,
  fdatasync,
  fdatasyncSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { resolve } from "node:path";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { EgpError } from "../errors/index.ts";

/*
 * `--data FILE`: the state in a SQLite database in WAL mode. Several processes may open FILE at
 * once; SQLite's own locks order their commits. A commit is durable once FILE-wal is fdatasynced:
 * what synchronous=FULL does inside COMMIT, on the event loop, `sync` does on the thread pool, so
 * that requests go on being handled while the disk works.
 * SQLite itself (synchronous=NORMAL) still syncs the WAL before a checkpoint and FILE after one.
 *
 * The state is plain JSON held in memory. Each top-level key of it is a row, and a key holding an
 * object is split one level further (a row per entry), so that a commit writes the records that
 * changed, not the whole state. Every commit raises a sequence number and stamps the rows it wrote
 * with it (a deleted row stays as a tombstone), so that a process reads only what the others
 * committed since it last looked. Reads and writes happen inside `BEGIN IMMEDIATE … COMMIT`, held
 * for one turn of the event loop at most, never across an await.
 */

type Json = Record<string, unknown>;

/** An application id in the SQLite header: "EGP" and the state's format, 1. */
const APPLICATION_ID = 0x45475001;
const SQLITE_HEADER = "SQLite format 3\0";
const SQLITE_BUSY = 5;
const SQLITE_FULL = 13;
/** How long a commit waits for another process's transaction (each lasts one turn of its loop). */
const BUSY_MS = 10_000;

/** Another process kept the data file locked past the busy wait. */
export class DataFileBusyError extends EgpError {
  constructor(file: string) {
    super(
      "EGP_DATA_BUSY",
      `${file} stayed locked by another process for ${BUSY_MS / 1000} s; try again once it is done`,
    );
    this.name = "DataFileBusyError";
  }
}

/** The data file is not a state this emulator wrote. */
export class DataFileUnreadableError extends EgpError {
  constructor(file: string, why: string) {
    super(
      "EGP_DATA_UNREADABLE",
      `${file} cannot be read as emulator state (${why}); move it away to start over from the seed`,
    );
    this.name = "DataFileUnreadableError";
  }
}

export interface StateDbOptions {
  file: string;
  /** The state of a new file, written in the transaction that found the file empty. */
  seed: () => Json;
  /** Whether an earlier version's JSON snapshot is the state, before it is turned into SQLite. */
  accepts: (data: Json) => boolean;
  /** Tests: returns an error to fail the next commit with (ENOSPC without a full disk). */
  fault?: () => Error | undefined;
}

interface SegmentRows {
  /** The segment's JSON when it is not an object; null when it is one, split into `entries`. */
  json: string | null;
  entries: Map<string, string>;
}

/** A row's key: `[segment]` or `[segment, entry]`, as JSON, so that any name is a key. */
const keyOf = (segment: string, entry?: string) =>
  JSON.stringify(entry === undefined ? [segment] : [segment, entry]);
const OBJECT = "{}";

function isPlainObject(value: unknown): value is Json {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function segmentRows(value: unknown): SegmentRows | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) return { json: JSON.stringify(value), entries: new Map() };
  const entries = new Map<string, string>();
  for (const [key, entry] of Object.entries(value)) {
    const json = JSON.stringify(entry);
    if (json !== undefined) entries.set(key, json);
  }
  return { json: null, entries };
}

/** A name a row may use as a segment or an entry: never one that reaches a prototype. */
const usable = (name: unknown): name is string => typeof name === "string" && name !== "__proto__";

/** What a commit writes: row key to JSON, or null to delete it. */
type Changes = Map<string, string | null>;

function hasSqliteHeader(file: string): boolean {
  const fd = openSync(file, "r");
  try {
    const head = Buffer.alloc(16);
    const read = readSync(fd, head, 0, 16, 0);
    return read === 16 && head.toString("latin1") === SQLITE_HEADER;
  } finally {
    closeSync(fd);
  }
}

function openDatabase(file: string): DatabaseSync {
  const { DatabaseSync } = process.getBuiltinModule("node:sqlite") as typeof import("node:sqlite");
  return new DatabaseSync(file, { timeout: BUSY_MS });
}

/** SQLite's busy and full-disk errors as egp's and Node's own (a 507 answer tests for ENOSPC). */
function plainError(file: string, error: unknown): unknown {
  const code = Number((error as { errcode?: unknown } | undefined)?.errcode) & 0xff;
  if (code === SQLITE_BUSY) return new DataFileBusyError(file);
  if (code === SQLITE_FULL)
    return Object.assign(new Error(`ENOSPC: no space left on device, writing ${file}`), {
      code: "ENOSPC",
      cause: error,
    });
  return error;
}

const openInThisProcess = new Map<string, StateDb>();

export class StateDb {
  readonly file: string;
  private readonly db: DatabaseSync;
  private readonly fault: (() => Error | undefined) | undefined;
  /** The rows as last committed by anyone and read by us: what is on disk. */
  private rows = new Map<string, SegmentRows>();
  private seq = 0;
  private dataVersion = 0;
  private inTransaction = false;
  private closed = false;
  /** Emulators of this process that opened the file and have not closed it. */
  private users = 1;
  /** FILE-wal, for `sync`. */
  private wal = -1;
  private dataVersionQuery: StatementSync | undefined;
  private upsert: StatementSync | undefined;
  /** The state, kept up to date with what other processes commit. */
  data: Json = {};

  private constructor(file: string, db: DatabaseSync, fault: (() => Error | undefined) | undefined) {
    this.file = file;
    this.db = db;
    this.fault = fault;
  }

  /**
   * Opens FILE (making it, or turning an earlier version's JSON into it), and reads the state.
   * Emulators of one process on one file share one connection and one state: a second
   * connection's lock would wait, blocking the loop, for a commit that the same loop has to run.
   */
  static open(options: StateDbOptions): StateDb {
    const path = resolve(options.file);
    const shared = openInThisProcess.get(path);
    if (shared) {
      shared.users++;
      return shared;
    }
    const state = StateDb.openConnection(options);
    openInThisProcess.set(path, state);
    return state;
  }

  private static openConnection(options: StateDbOptions): StateDb {
    const { file } = options;
    if (existsSync(file) && statSync(file).size > 0 && !hasSqliteHeader(file))
      migrateJson(file, options.accepts);
    const made = !existsSync(file);
    // The state holds password hashes: readable by this user only (SQLite gives FILE-wal its mode).
    const fd = openSync(file, "a", 0o600);
    try {
      fchmodSync(fd, 0o600);
    } finally {
      closeSync(fd);
    }
    // A start that fails leaves no file it made (a full disk would otherwise keep an empty one).
    const forget = () => {
      if (made) for (const name of [file, `${file}-wal`, `${file}-shm`]) rmSync(name, { force: true });
    };
    let db: DatabaseSync;
    try {
      db = openDatabase(file);
    } catch (error) {
      forget();
      throw plainError(file, error);
    }
    const state = new StateDb(file, db, options.fault);
    try {
      state.setUp(options.seed);
      // Open while FILE is: the last connection's close removes it, and ours is open.
      state.wal = openSync(`${file}-wal`, "r");
      fdatasyncSync(state.wal);
    } catch (error) {
      db.close();
      forget();
      throw plainError(file, error);
    }
    return state;
  }

  private setUp(seed: () => Json): void {
    const { db, file } = this;
    let applicationId: number;
    try {
      applicationId = Number(db.prepare("PRAGMA application_id").get()?.application_id);
    } catch {
      // SQLite's own message may quote nothing of the file, but says nothing useful either.
      throw new DataFileUnreadableError(file, "not a SQLite database");
    }
    const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all();
    if (applicationId !== APPLICATION_ID && (applicationId !== 0 || tables.length > 0))
      throw new DataFileUnreadableError(file, "a SQLite database of another program");
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("BEGIN IMMEDIATE");
    this.inTransaction = true;
    try {
      // Another process may have made the file between our first look and our lock.
      const made = Number(db.prepare("PRAGMA application_id").get()?.application_id) === APPLICATION_ID;
      if (!made) {
        db.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
        db.exec("CREATE TABLE rows (key TEXT PRIMARY KEY, json TEXT, seq INTEGER NOT NULL) WITHOUT ROWID");
        db.exec("CREATE INDEX rows_by_seq ON rows (seq)");
        db.exec("CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL)");
        db.exec("INSERT INTO meta VALUES ('seq', 0)");
      }
      this.refresh(new Set());
      if (this.rows.size === 0) {
        this.data = seed();
        this.write(this.diff(null));
      }
      this.commitTransaction();
    } catch (error) {
      this.rollback();
      throw error;
    }
  }

  /**
   * Takes the write lock (waiting for another process's commit, at most BUSY_MS) and reads what
   * other processes committed since we last looked. Held until `commit`, within this turn.
   */
  begin(): void {
    if (this.lock()) this.refresh(new Set());
  }

  /** Takes the write lock unless held; true when it was taken now. */
  private lock(): boolean {
    if (this.closed) throw new Error(`${this.file} is closed`);
    if (this.inTransaction) return false;
    try {
      this.db.exec("BEGIN IMMEDIATE");
    } catch (error) {
      throw plainError(this.file, error);
    }
    this.inTransaction = true;
    return true;
  }

  /**
   * Writes what differs from what is on disk (`touched` names it: segments, `users`, or entries,
   * `users/12`; null: anything), reading first what others committed (their rows win where we did
   * not write), and commits. On failure nothing is written and `data` is what is on disk.
   */
  commit(touched: ReadonlySet<string> | null): void {
    // Ours first: reading theirs before would overwrite what we changed since the turn began.
    const changes = this.diff(touched);
    this.lock();
    try {
      this.refresh(new Set(changes.keys()));
      if (changes.size > 0) {
        const injected = this.fault?.();
        if (injected) throw injected;
        this.write(changes);
      }
      this.commitTransaction();
    } catch (error) {
      this.rollback();
      this.reload();
      throw plainError(this.file, error);
    }
  }

  /** Reads everything on disk again, after a commit that may or may not have reached it. */
  private reload(): void {
    this.rows = new Map();
    this.data = {};
    this.seq = 0;
    this.dataVersion = -1;
    try {
      this.refresh(new Set());
    } catch {
      // Unreadable now: what was last known to be on disk is the best guess, and the next commit retries.
    }
  }

  /** The state as on disk: a fresh object, for the store to go back to after a failed commit. */
  lastCommitted(): Json {
    const data: Json = {};
    for (const [segment, row] of this.rows) {
      if (row.json !== null) {
        data[segment] = JSON.parse(row.json);
        continue;
      }
      const object: Json = {};
      for (const [key, json] of row.entries) object[key] = JSON.parse(json);
      data[segment] = object;
    }
    return data;
  }

  /**
   * Resolves once every commit made before the call is on disk (fdatasync of FILE-wal). Several
   * may run at once: a commit need not wait for the sync of an earlier one to end before its own.
   */
  sync(): Promise<void> {
    return new Promise((resolve, reject) =>
      fdatasync(this.wal, (error) => (error ? reject(plainError(this.file, error)) : resolve())),
    );
  }

  close(): void {
    if (this.closed) return;
    if (--this.users > 0) return;
    openInThisProcess.delete(resolve(this.file));
    this.closed = true;
    if (this.inTransaction) this.rollback();
    if (this.wal >= 0) closeSync(this.wal);
    // The last connection to close checkpoints the WAL and removes FILE-wal and FILE-shm.
    this.db.close();
  }

  private commitTransaction(): void {
    // Read while the write lock is held: no other connection can commit before our COMMIT, and our
    // own COMMIT leaves our data_version as it is. Read after it, a commit another process makes in
    // between would count as seen, and the next refresh would skip it (its ids handed out again).
    const version = this.readDataVersion();
    this.db.exec("COMMIT");
    this.inTransaction = false;
    this.dataVersion = version;
  }

  /** Changes when another connection commits; read on every request, so prepared once. */
  private readDataVersion(): number {
    this.dataVersionQuery ??= this.db.prepare("PRAGMA data_version");
    return Number(this.dataVersionQuery.get()?.data_version);
  }

  private rollback(): void {
    this.inTransaction = false;
    try {
      this.db.exec("ROLLBACK");
    } catch {
      // No transaction was open (SQLite ends one itself on some errors).
    }
  }

  /** Reads the rows other processes committed since we last looked, but those in `ours`. */
  private refresh(ours: ReadonlySet<string>): void {
    const version = this.readDataVersion();
    if (version === this.dataVersion && this.dataVersion !== 0) return;
    this.dataVersion = version;
    const seq = Number(this.db.prepare("SELECT value FROM meta WHERE name = 'seq'").get()?.value);
    if (seq === this.seq) return;
    const found = this.db.prepare("SELECT key, json FROM rows WHERE seq > ? ORDER BY key").all(this.seq);
    this.seq = seq;
    // Segments before their entries: a segment row may make a segment an object again.
    const named = found.map((row) => {
      let name: unknown;
      try {
        name = JSON.parse(String(row.key));
      } catch {
        name = undefined;
      }
      if (
        !Array.isArray(name) ||
        !usable(name[0]) ||
        (name.length === 2 && !usable(name[1])) ||
        name.length > 2
      )
        throw new DataFileUnreadableError(this.file, "a row that is not the emulator's");
      return { key: String(row.key), segment: name[0], entry: name[1] as string | undefined, json: row.json };
    });
    named.sort((a, b) => Number(a.entry !== undefined) - Number(b.entry !== undefined));
    // A segment that changes is a new object, so that views indexed by it (the catalogue's) start over.
    const copied = new Set<string>();
    for (const { key, segment, entry, json } of named) {
      if (ours.has(key)) continue;
      const text = typeof json === "string" ? json : null;
      let value: unknown;
      try {
        value = text === null ? undefined : JSON.parse(text);
      } catch {
        throw new DataFileUnreadableError(this.file, "a row that is not JSON");
      }
      if (entry === undefined) {
        if (text === null) {
          this.rows.delete(segment);
          delete this.data[segment];
        } else if (text === OBJECT) {
          const before = this.rows.get(segment);
          if (!before || before.json !== null) {
            this.rows.set(segment, { json: null, entries: new Map() });
            this.data[segment] = {};
            copied.add(segment);
          }
        } else {
          this.rows.set(segment, { json: text, entries: new Map() });
          this.data[segment] = value;
        }
        continue;
      }
      const row = this.rows.get(segment);
      if (!row || row.json !== null || !isPlainObject(this.data[segment])) continue;
      if (!copied.has(segment)) this.data[segment] = { ...(this.data[segment] as Json) };
      copied.add(segment);
      const object = this.data[segment] as Json;
      if (text === null) {
        row.entries.delete(entry);
        delete object[entry];
      } else {
        row.entries.set(entry, text);
        object[entry] = value;
      }
    }
  }

  /** The rows of `data` that differ from what is on disk, among those `touched` names. */
  private diff(touched: ReadonlySet<string> | null): Changes {
    const segments = new Set<string>();
    const entriesOf = new Map<string, Set<string>>();
    for (const name of touched ?? [...Object.keys(this.data), ...this.rows.keys()]) {
      const slash = name.indexOf("/");
      if (slash < 0) segments.add(name);
      else {
        const segment = name.slice(0, slash);
        const keys = entriesOf.get(segment) ?? new Set<string>();
        keys.add(name.slice(slash + 1));
        entriesOf.set(segment, keys);
      }
    }
    const changes: Changes = new Map();
    for (const [segment, keys] of entriesOf) {
      if (segments.has(segment)) continue;
      const value = this.data[segment];
      const before = this.rows.get(segment);
      if (!isPlainObject(value) || !before || before.json !== null) {
        segments.add(segment);
        continue;
      }
      for (const key of keys) {
        const json = value[key] === undefined ? undefined : JSON.stringify(value[key]);
        if (json === undefined) {
          if (before.entries.has(key)) changes.set(keyOf(segment, key), null);
        } else if (before.entries.get(key) !== json) changes.set(keyOf(segment, key), json);
      }
    }
    for (const segment of segments) {
      const row = segmentRows(this.data[segment]);
      const before = this.rows.get(segment);
      const wasObject = before !== undefined && before.json === null;
      if (!row) {
        if (before) changes.set(keyOf(segment), null);
        if (wasObject) for (const key of before.entries.keys()) changes.set(keyOf(segment, key), null);
        continue;
      }
      if (row.json !== null) {
        if (before?.json !== row.json) changes.set(keyOf(segment), row.json);
        if (wasObject) for (const key of before.entries.keys()) changes.set(keyOf(segment, key), null);
        continue;
      }
      if (!wasObject) changes.set(keyOf(segment), OBJECT);
      for (const [key, json] of row.entries) {
        if (!wasObject || before.entries.get(key) !== json) changes.set(keyOf(segment, key), json);
      }
      if (wasObject) {
        for (const key of before.entries.keys())
          if (!row.entries.has(key)) changes.set(keyOf(segment, key), null);
      }
    }
    return changes;
  }

  /** Writes `changes` in the open transaction, and notes them as on disk. */
  private write(changes: Changes): void {
    const seq = this.seq + 1;
    this.upsert ??= this.db.prepare(
      "INSERT INTO rows (key, json, seq) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET json = excluded.json, seq = excluded.seq",
    );
    for (const [key, json] of changes) this.upsert.run(key, json, seq);
    this.db.prepare("UPDATE meta SET value = ? WHERE name = 'seq'").run(seq);
    this.seq = seq;
    // Noted as on disk now; a failed COMMIT puts `rows` back from the database (`reload`).
    for (const [key, json] of changes) {
      const [segment, entry] = JSON.parse(key) as [string, string | undefined];
      if (entry === undefined) {
        if (json === null) this.rows.delete(segment);
        else if (json === OBJECT) {
          const before = this.rows.get(segment);
          if (!before || before.json !== null) this.rows.set(segment, { json: null, entries: new Map() });
        } else this.rows.set(segment, { json, entries: new Map() });
        continue;
      }
      const row = this.rows.get(segment);
      if (!row || row.json !== null) continue;
      if (json === null) row.entries.delete(entry);
      else row.entries.set(entry, json);
    }
  }
}

/**
 * Turns the JSON snapshot of an earlier version into a SQLite file beside it, then puts that in its
 * place; the JSON stays as FILE.json-v1.bak. A FILE.log with changes not folded in is refused.
 */
function migrateJson(file: string, accepts: (data: Json) => boolean): void {
  let data: unknown;
  // The parser's own message quotes the file, and the file may be anything: it is not quoted.
  try {
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    throw new DataFileUnreadableError(file, "neither SQLite nor JSON");
  }
  if (!isPlainObject(data) || !accepts(data))
    throw new DataFileUnreadableError(file, "not an egp emulator state");
  const log = `${file}.log`;
  if (existsSync(log) && statSync(log).size > 0)
    throw new DataFileUnreadableError(
      file,
      `${log} holds changes an earlier egp did not fold in; open the file once with that version`,
    );
  const temp = `${file}.${process.pid}.migrating`;
  rmSync(temp, { force: true });
  const state = StateDb.open({ file: temp, seed: () => data as Json, accepts });
  state.close();
  renameSync(file, `${file}.json-v1.bak`);
  renameSync(temp, file);
  rmSync(log, { force: true });
}

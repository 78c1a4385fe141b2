import {
  closeSync,
  existsSync,
  fchmodSync,
  fdatasync,
  fdatasyncSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { holderOfThisProcess, type LockHolder, releaseLockFile, tryTakeLockFile } from "../io/lock-file.ts";
import { EmulatorErrorCode } from "./error-codes.ts";

/*
 * `--data FILE`: the state, durable. Files beside FILE:
 * - FILE: a JSON snapshot of the state (what earlier versions wrote; still read as is);
 * - FILE.log: the changes since that snapshot, one line per commit, appended and fdatasynced
 *   before the writes it holds are answered (the store waits for it, src/emulator/server.ts);
 * - FILE.lock: the owner lock. One process at a time opens FILE; another waits for it (bounded),
 *   then reads what the first one committed. Held in memory, the state cannot be shared live.
 *
 * A commit writes the rows that changed: each top-level key of the state is a row, and a key
 * holding an object is split one level further (`users/12`), so a write costs its records, not the
 * whole state. Rows are found by comparing each row's JSON with what was last committed: those the
 * store was told of (`changed("users/12")`), or all of them. A new file's first commit writes FILE.
 *
 * When FILE.log outgrows the snapshot, and on close, the log is folded into FILE (FILE.tmp,
 * fsynced, renamed over FILE), then emptied. Replaying a log over a newer snapshot is harmless:
 * every line sets rows to what they then were, in order, so the last line touching a row wins.
 * A torn last line (a crash while appending) was never answered, and is dropped on open.
 */

export interface DataFileOptions {
  file: string;
  /** Who opens it, for the message another process prints while it waits (never argv: secrets). */
  command: string;
  /** How long to wait for another process to close the file. */
  waitMs: number;
  /** Called once, when the file is held by another process and we start waiting. */
  onWait?: (holder: LockHolder, file: string) => void;
  /** Tests: returns an error to fail the next log write with (ENOSPC without a full disk). */
  fault?: () => Error | undefined;
}

/** The data file is held by another process that did not close it in time. */
export class DataFileBusyError extends Error {
  readonly code = EmulatorErrorCode.DataBusy;
  constructor(file: string, holder: LockHolder, waitedMs: number) {
    super(
      `${file} is in use by pid ${holder.pid} on ${holder.host} since ${holder.startedAt} (${holder.command}); ` +
        `gave up after ${Math.round(waitedMs / 1000)} s (if that process is gone, delete ${file}.lock)`,
    );
    this.name = "DataFileBusyError";
  }
}

/** The data file is not a snapshot this emulator wrote. */
export class DataFileUnreadableError extends Error {
  readonly code = EmulatorErrorCode.DataUnreadable;
  constructor(file: string, why: string) {
    super(`${file} cannot be read as emulator state (${why}); move it away to start over from the seed`);
    this.name = "DataFileUnreadableError";
  }
}

type Json = Record<string, unknown>;

interface SegmentRows {
  /** The segment's JSON when it is not an object; null when it is one, split into `entries`. */
  json: string | null;
  entries: Map<string, string>;
}

function isPlainObject(value: unknown): value is Json {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/*
 * A log line is a JSON array of operations:
 *   ["o", seg]            seg becomes an empty object
 *   ["s", seg, key, v]    seg[key] = v
 *   ["d", seg, key]       delete seg[key]
 *   ["v", seg, v]         seg = v (not an object)
 *   ["x", seg]            delete seg
 */
type Op =
  | ["o", string]
  | ["s", string, string, unknown]
  | ["d", string, string]
  | ["v", string, unknown]
  | ["x", string];

/** A name a log line may use as a segment or a key: never one that reaches a prototype. */
const usable = (name: unknown): name is string => typeof name === "string" && name !== "__proto__";

/** Throws on a line that is not a list of operations on the state's own objects. */
function applyOps(data: Json, ops: Op[]): void {
  if (!Array.isArray(ops)) throw new TypeError("not a list of operations");
  for (const op of ops) {
    if (!Array.isArray(op) || !usable(op[1])) throw new TypeError("not an operation");
    if ((op[0] === "s" || op[0] === "d") && !(usable(op[2]) && isPlainObject(data[op[1]])))
      throw new TypeError("an operation on nothing");
    switch (op[0]) {
      case "o":
        data[op[1]] = {};
        break;
      case "s":
        (data[op[1]] as Json)[op[2]] = op[3];
        break;
      case "d":
        delete (data[op[1]] as Json)[op[2]];
        break;
      case "v":
        data[op[1]] = op[2];
        break;
      case "x":
        delete data[op[1]];
        break;
    }
  }
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

function rowsOf(data: Json): Map<string, SegmentRows> {
  const rows = new Map<string, SegmentRows>();
  for (const [segment, value] of Object.entries(data)) {
    const row = segmentRows(value);
    if (row) rows.set(segment, row);
  }
  return rows;
}

function snapshotText(rows: Map<string, SegmentRows>): string {
  const parts: string[] = [];
  for (const [segment, row] of rows) {
    if (row.json !== null) {
      parts.push(`${JSON.stringify(segment)}:${row.json}`);
      continue;
    }
    const entries: string[] = [];
    for (const [key, json] of row.entries) entries.push(`${JSON.stringify(key)}:${json}`);
    parts.push(`${JSON.stringify(segment)}:{${entries.join(",")}}`);
  }
  return `{${parts.join(",")}}`;
}

function fsyncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes `text` to `file` durably and atomically: FILE.tmp, fsync, rename, fsync of the folder. */
function replaceDurably(file: string, text: string): void {
  const temp = `${file}.tmp`;
  try {
    // The state holds password hashes: readable by this user only.
    const fd = openSync(temp, "w", 0o600);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  fsyncDir(dirname(file));
}

export class DataFile {
  readonly file: string;
  /** The state found on open; undefined when there was none (the seed is used). */
  readonly initial: Json | undefined;
  private readonly logFile: string;
  private readonly lockFile: string;
  private readonly holder: LockHolder;
  private readonly fault: (() => Error | undefined) | undefined;
  /** The rows as last committed: what is on disk. */
  private rows: Map<string, SegmentRows>;
  /** FILE.log's descriptor. */
  private log: number;
  private logBytes = 0;
  private snapshotBytes: number;
  private closed = false;

  private constructor(
    options: DataFileOptions,
    holder: LockHolder,
    initial: Json | undefined,
    log: number,
    snapshotBytes: number,
  ) {
    this.file = options.file;
    this.logFile = `${options.file}.log`;
    this.lockFile = `${options.file}.lock`;
    this.holder = holder;
    this.fault = options.fault;
    this.initial = initial;
    this.rows = initial ? rowsOf(initial) : new Map();
    this.log = log;
    this.snapshotBytes = snapshotBytes;
  }

  /** Takes the owner lock (waiting up to `waitMs`), reads the state, folds the log into the snapshot. */
  static async open(options: DataFileOptions): Promise<DataFile> {
    const { file } = options;
    const lockFile = `${file}.lock`;
    const holder = holderOfThisProcess(options.command);
    const started = Date.now();
    let told = false;
    for (;;) {
      const result = tryTakeLockFile(lockFile, holder, 6 * 3_600_000);
      if (result.taken) break;
      if (result.moved) continue;
      const waited = Date.now() - started;
      if (waited >= options.waitMs) throw new DataFileBusyError(file, result.holder, waited);
      if (!told) options.onWait?.(result.holder, file);
      told = true;
      await sleep(Math.min(100, options.waitMs - waited));
    }
    try {
      removeLeftovers(file);
      let data: Json | undefined;
      if (existsSync(file)) {
        // The parser's own message quotes the file, and the file may be anything: it is not quoted.
        try {
          data = JSON.parse(readFileSync(file, "utf8")) as Json;
        } catch {
          throw new DataFileUnreadableError(file, "not JSON");
        }
        if (!isPlainObject(data) || data.format !== 1) {
          throw new DataFileUnreadableError(file, "not an egp emulator snapshot (format 1)");
        }
      }
      // The log is relative to the snapshot: without FILE (deleted to start over), it is dropped.
      let replayed = false;
      if (data && existsSync(`${file}.log`)) {
        for (const ops of completeLines(readFileSync(`${file}.log`, "utf8"))) {
          try {
            applyOps(data, ops);
          } catch {
            throw new DataFileUnreadableError(`${file}.log`, "not an egp emulator log");
          }
          replayed = true;
        }
      }
      let snapshotBytes = 0;
      if (data && replayed) {
        const text = snapshotText(rowsOf(data));
        replaceDurably(file, text);
        snapshotBytes = text.length;
      } else if (data) {
        snapshotBytes = readFileSync(file).length;
      }
      const log = openSync(`${file}.log`, "w", 0o600);
      fchmodSync(log, 0o600);
      fsyncDir(dirname(file));
      return new DataFile(options, holder, data, log, snapshotBytes);
    } catch (error) {
      releaseLockFile(lockFile, holder);
      throw error;
    }
  }

  /** `append` then `sync`. */
  async commit(data: Json, touched: ReadonlySet<string> | null = null): Promise<void> {
    this.append(data, touched);
    await this.sync();
  }

  /**
   * Writes the rows that differ from the last commit to the log (in the page cache: it survives
   * the death of this process, not yet of the machine; `sync` does that). `touched` names what
   * may differ: top-level keys (`users`) or entries of one (`users/12`); null: anything.
   * Synchronous, so that lines are written in order while several `sync`s may be under way. On
   * failure nothing is written, and `lastCommitted()` is what is on disk.
   */
  append(data: Json, touched: ReadonlySet<string> | null = null): void {
    if (this.closed) throw new Error(`${this.file} is closed`);
    const segments = new Set<string>();
    const entriesOf = new Map<string, Set<string>>();
    for (const name of touched ?? [...Object.keys(data), ...this.rows.keys()]) {
      const slash = name.indexOf("/");
      if (slash < 0) segments.add(name);
      else {
        const segment = name.slice(0, slash);
        const keys = entriesOf.get(segment) ?? new Set<string>();
        keys.add(name.slice(slash + 1));
        entriesOf.set(segment, keys);
      }
    }
    const next = new Map(this.rows);
    const ops: string[] = [];
    for (const [segment, keys] of entriesOf) {
      if (segments.has(segment)) continue;
      const value = data[segment];
      const before = this.rows.get(segment);
      if (!isPlainObject(value) || !before || before.json !== null) {
        segments.add(segment);
        continue;
      }
      const entries = new Map(before.entries);
      const seg = JSON.stringify(segment);
      for (const key of keys) {
        const json = value[key] === undefined ? undefined : JSON.stringify(value[key]);
        if (json === undefined) {
          if (entries.delete(key)) ops.push(`["d",${seg},${JSON.stringify(key)}]`);
        } else if (entries.get(key) !== json) {
          entries.set(key, json);
          ops.push(`["s",${seg},${JSON.stringify(key)},${json}]`);
        }
      }
      next.set(segment, { json: null, entries });
    }
    for (const segment of segments) {
      const row = segmentRows(data[segment]);
      const before = this.rows.get(segment);
      const seg = JSON.stringify(segment);
      if (!row) {
        if (before) ops.push(`["x",${seg}]`);
        next.delete(segment);
        continue;
      }
      next.set(segment, row);
      if (row.json !== null) {
        if (before?.json !== row.json) ops.push(`["v",${seg},${row.json}]`);
        continue;
      }
      const fresh = !before || before.json !== null;
      if (fresh) ops.push(`["o",${seg}]`);
      for (const [key, json] of row.entries) {
        if (fresh || before.entries.get(key) !== json)
          ops.push(`["s",${seg},${JSON.stringify(key)},${json}]`);
      }
      if (!fresh) {
        for (const key of before.entries.keys()) {
          if (!row.entries.has(key)) ops.push(`["d",${seg},${JSON.stringify(key)}]`);
        }
      }
    }
    if (ops.length === 0) return;
    const injected = this.fault?.();
    if (injected) throw injected;
    if (this.rows.size === 0) {
      // The first commit of a new file is its snapshot, so that a log never exists without one.
      const text = snapshotText(next);
      replaceDurably(this.file, text);
      this.snapshotBytes = text.length;
      this.rows = next;
      return;
    }
    const bytes = Buffer.from(`[${ops.join(",")}]\n`);
    try {
      writeSync(this.log, bytes, 0, bytes.length, this.logBytes);
    } catch (error) {
      // A partial line would be dropped on open, but the next line must not follow it.
      try {
        ftruncateSync(this.log, this.logBytes);
      } catch {
        // Then the next open drops it and what follows, none of it answered.
      }
      throw error;
    }
    this.logBytes += bytes.length;
    this.rows = next;
    if (this.logBytes > Math.max(4 * 1024 * 1024, 2 * this.snapshotBytes)) this.compact();
  }

  /**
   * Resolves once everything appended before the call is on disk (fdatasync). Several may run at
   * once: a write need not wait for the sync of an earlier one to finish before its own starts.
   */
  sync(): Promise<void> {
    return new Promise((resolve, reject) =>
      fdatasync(this.log, (error) => (error ? reject(error) : resolve())),
    );
  }

  /** The state as last committed: a fresh object, for a store to go back to after a failed commit. */
  lastCommitted(): Json {
    return JSON.parse(snapshotText(this.rows)) as Json;
  }

  /** Folds the log into the snapshot. */
  private compact(): void {
    const text = snapshotText(this.rows);
    replaceDurably(this.file, text);
    this.snapshotBytes = text.length;
    ftruncateSync(this.log, 0);
    fdatasyncSync(this.log);
    this.logBytes = 0;
  }

  /** Folds the log into the snapshot, removes the log and gives up the owner lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.rows.size > 0) {
        replaceDurably(this.file, snapshotText(this.rows));
        closeSync(this.log);
        rmSync(this.logFile, { force: true });
      } else {
        closeSync(this.log);
        rmSync(this.logFile, { force: true });
      }
    } finally {
      releaseLockFile(this.lockFile, this.holder);
    }
  }

  /** Gives up the owner lock without writing anything (a start that failed). */
  async abandon(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      closeSync(this.log);
    } catch {
      // Already closed.
    }
    releaseLockFile(this.lockFile, this.holder);
  }
}

function* completeLines(text: string): Generator<Op[]> {
  let at = 0;
  for (;;) {
    const end = text.indexOf("\n", at);
    if (end < 0) return; // a torn tail, never acknowledged
    let ops: Op[];
    try {
      ops = JSON.parse(text.slice(at, end)) as Op[];
    } catch {
      return;
    }
    yield ops;
    at = end + 1;
  }
}

/** FILE.tmp from a compaction cut short, and FILE.<pid>.tmp from earlier versions. */
function removeLeftovers(file: string): void {
  const dir = dirname(file);
  const name = basename(file);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const pattern = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.(\\d+\\.)?tmp$`);
  for (const entry of names) if (pattern.test(entry)) rmSync(join(dir, entry), { force: true });
}

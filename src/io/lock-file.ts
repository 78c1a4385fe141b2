import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  linkSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { EgpError } from "../errors/index.ts";

/*
 * An exclusive lock held as a file naming its holder: the apply lock (`.egp/locks/<env>.lock`) and
 * the emulator's data file (`<data>.lock`). Shared by the CLI and the emulator, so it lives in io.
 *
 * - Taking is atomic: the holder is written in full to a private temp file, which is then
 *   hard-linked to the lock's name. link(2) fails when the name exists, so two takers can never
 *   both succeed, and a lock file is never seen empty or half-written while being taken.
 * - A stale lock (its pid gone on this host; older than `staleAfterMs` from another host) is taken
 *   over inside a mutex: an exclusive SQLite transaction on `<lock>.takeover`, which the kernel
 *   releases if its holder dies. Inside it the taker checks that the lock still holds the same
 *   bytes before replacing it, so two takers of one stale lock cannot both replace it.
 * - A lock file that cannot be read as a holder (empty, torn, `null`, garbage) is reported, never
 *   taken: something other than egp wrote it, and only a person can tell whether it is safe. An
 *   empty file younger than a second may be an older egp still writing it, so it is read again.
 */

export interface LockHolder {
  pid: number;
  host: string;
  startedAt: string;
  command: string;
}

/** The lock file exists but does not name a holder. */
export class LockFileUnreadableError extends EgpError {
  readonly file: string;
  constructor(file: string, why: string) {
    super(
      "EGP_LOCK_UNREADABLE",
      `the lock file ${file} is unreadable (${why}); if no egp process is using it, delete it`,
    );
    this.name = "LockFileUnreadableError";
    this.file = file;
  }
}

export type TakeResult =
  | { taken: true; tookOver?: LockHolder }
  | { taken: false; holder: LockHolder; moved?: undefined }
  | { taken: false; moved: true; holder?: undefined };

export function holderOfThisProcess(command: string): LockHolder {
  return { pid: process.pid, host: hostname(), startedAt: new Date().toISOString(), command };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** How long a lock taken on another host is believed (its process can't be asked). */
export const LOCK_STALE_AFTER_MS = 6 * 3_600_000;

export function isStale(holder: LockHolder, now: number, staleAfterMs: number): boolean {
  if (holder.host === hostname()) return !alive(holder.pid);
  return now - Date.parse(holder.startedAt) > staleAfterMs;
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function isHolder(value: unknown): value is LockHolder {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    Number.isInteger(v.pid) &&
    typeof v.host === "string" &&
    typeof v.startedAt === "string" &&
    typeof v.command === "string"
  );
}

type Read = { kind: "missing" } | { kind: "holder"; holder: LockHolder; raw: string };

const WRITING_GRACE_MS = 1_000;

/** Reads the lock file; throws LockFileUnreadableError when it holds no holder. */
export function readLockFile(file: string): Read {
  const deadline = Date.now() + WRITING_GRACE_MS;
  for (;;) {
    let raw: string;
    try {
      raw = readFileSync(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "missing" };
      throw new LockFileUnreadableError(file, (error as NodeJS.ErrnoException).code ?? String(error));
    }
    if (raw.trim() === "") {
      let young = false;
      try {
        young = Date.now() - statSync(file).mtimeMs < WRITING_GRACE_MS;
      } catch {
        continue; // removed meanwhile: read again, it is missing now
      }
      if (young && Date.now() < deadline) {
        sleepSync(20);
        continue;
      }
      throw new LockFileUnreadableError(file, "it is empty");
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new LockFileUnreadableError(file, "it is not JSON");
    }
    if (!isHolder(parsed))
      throw new LockFileUnreadableError(file, "it does not name a pid, host and command");
    return { kind: "holder", holder: parsed, raw };
  }
}

/** Runs `fn` while holding `<file>.takeover` exclusively (across processes; freed if we die). */
function withTakeoverMutex<T>(file: string, fn: () => T): T {
  const { DatabaseSync } = process.getBuiltinModule("node:sqlite") as typeof import("node:sqlite");
  // SQLite makes its file with the umask's mode (0644): made 0600 first, as all of `.egp/` is.
  closeSync(openSync(`${file}.takeover`, "a", 0o600));
  chmodSync(`${file}.takeover`, 0o600);
  const db = new DatabaseSync(`${file}.takeover`, { timeout: 10_000 });
  try {
    db.exec("BEGIN EXCLUSIVE");
    try {
      return fn();
    } finally {
      db.exec("COMMIT");
    }
  } finally {
    db.close();
  }
}

function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Already gone.
  }
}

/**
 * One try to take the lock for `holder`: taken, held by someone (who), or `moved` when the lock
 * changed hands during the try (released between our link and our read, or replaced by another
 * taker of a stale lock); the caller decides whether and when to try again. Throws
 * LockFileUnreadableError for a lock file that names no holder, and the filesystem's error (ENOSPC,
 * EACCES) when the lock cannot be written; either way no file of ours is left behind.
 */
export function tryTakeLockFile(file: string, holder: LockHolder, staleAfterMs: number): TakeResult {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    writeFileSync(temp, `${JSON.stringify(holder)}\n`, { flag: "wx", mode: 0o600 });
    try {
      linkSync(temp, file);
      removeDeadTemps(file);
      return { taken: true };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const current = readLockFile(file);
    if (current.kind === "missing") return { taken: false, moved: true };
    if (!isStale(current.holder, Date.now(), staleAfterMs)) return { taken: false, holder: current.holder };
    const replaced = withTakeoverMutex(file, () => {
      const again = readLockFile(file);
      if (again.kind === "holder" && again.raw !== current.raw) return false; // someone else won
      if (again.kind === "holder") unlinkSync(file);
      try {
        linkSync(temp, file);
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        return false;
      }
    });
    if (!replaced) return { taken: false, moved: true };
    removeDeadTemps(file);
    return { taken: true, tookOver: current.holder };
  } finally {
    removeQuietly(temp);
  }
}

/** Temp files of takers killed between writing and removing them (`<lock>.<pid>.<hex>.tmp`). */
function removeDeadTemps(file: string): void {
  const prefix = `${basename(file)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(file));
  } catch {
    return;
  }
  for (const name of names) {
    const match = /^(\d+)\.[0-9a-f]{8}\.tmp$/.exec(name.startsWith(prefix) ? name.slice(prefix.length) : "");
    if (match && !alive(Number(match[1]))) removeQuietly(join(dirname(file), name));
  }
}

/** Removes the lock if it is still `holder`'s. */
export function releaseLockFile(file: string, holder: LockHolder): void {
  try {
    const current = JSON.parse(readFileSync(file, "utf8")) as LockHolder | null;
    if (
      current?.pid === holder.pid &&
      current.host === holder.host &&
      current.startedAt === holder.startedAt
    ) {
      unlinkSync(file);
    }
  } catch {
    // Already gone, or not ours to remove.
  }
}

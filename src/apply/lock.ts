import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { ApplyErrorCode } from "./error-codes.ts";

/*
 * One apply per environment from one checkout at a time: `.egp/locks/<env>.lock`, created
 * exclusively, holding who took it. A lock whose process is gone (same host, pid not alive) is
 * stale and taken over; a lock from another host is stale after `staleAfterMs`. Runs on several
 * machines are serialized by CI concurrency groups (docs/apply.md).
 */

export interface LockHolder {
  pid: number;
  host: string;
  startedAt: string;
  command: string;
}

export class LockedError extends Error {
  readonly code = ApplyErrorCode.Locked;
  /** Who holds it; absent when the lock changed hands while this run tried to take it. */
  readonly holder: LockHolder | undefined;
  constructor(env: string, file: string, holder?: LockHolder) {
    super(
      holder
        ? `${env} is locked by pid ${holder.pid} on ${holder.host} since ${holder.startedAt} (${holder.command}); ` +
            `if that run is gone, delete ${file}`
        : `${env}: could not take the lock ${file}: another run took it at the same moment; try again`,
    );
    this.name = "LockedError";
    this.holder = holder;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function isStale(holder: LockHolder, now: number, staleAfterMs: number): boolean {
  if (holder.host === hostname()) return !alive(holder.pid);
  return now - Date.parse(holder.startedAt) > staleAfterMs;
}

export interface Lock {
  file: string;
  release(): void;
  /** Set when a stale lock was taken over. */
  tookOver?: LockHolder;
}

export function acquireLock(
  stateDir: string,
  env: string,
  command: string,
  staleAfterMs = 6 * 3_600_000,
): Lock {
  const folder = join(stateDir, "locks");
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${env}.lock`);
  const holder: LockHolder = {
    pid: process.pid,
    host: hostname(),
    startedAt: new Date().toISOString(),
    command,
  };
  let tookOver: LockHolder | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, `${JSON.stringify(holder)}\n`, { flag: "wx" });
      const release = () => {
        try {
          const current = JSON.parse(readFileSync(file, "utf8")) as LockHolder;
          if (current.pid === holder.pid && current.host === holder.host) rmSync(file, { force: true });
        } catch {
          // Already gone.
        }
      };
      return { file, release, ...(tookOver ? { tookOver } : {}) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    let existing: LockHolder;
    try {
      existing = JSON.parse(readFileSync(file, "utf8")) as LockHolder;
    } catch {
      // An unreadable lock (torn write) is stale.
      rmSync(file, { force: true });
      continue;
    }
    if (!isStale(existing, Date.now(), staleAfterMs)) throw new LockedError(env, file, existing);
    tookOver = existing;
    rmSync(file, { force: true });
  }
  throw new LockedError(env, file);
}

import { join } from "node:path";
import { backoff, LOCK_RETRY_POLICY } from "../client/retry.ts";
import { EgpError } from "../errors/index.ts";
import {
  holderOfThisProcess,
  isStale,
  LOCK_STALE_AFTER_MS,
  LockFileUnreadableError,
  type LockHolder,
  releaseLockFile,
  tryTakeLockFile,
} from "../io/lock-file.ts";
import { privateDir } from "../io/private-dir.ts";

/*
 * One apply per environment from one checkout at a time: `.egp/locks/<env>.lock`, taken atomically
 * and holding who took it (src/io/lock-file.ts). A lock whose process is gone (same host, pid not
 * alive) is stale and taken over; a lock from another host is stale after `staleAfterMs`. Runs on
 * several machines are serialized by CI concurrency groups (docs/apply.md).
 *
 * A lock held by a live run is refused at once, as Terraform does without `-lock-timeout`. A lock
 * that changed hands while it was being taken is free again within moments: it is tried again after
 * the shared jittered backoff (LOCK_RETRY_POLICY), a bounded number of times. The wait blocks, as
 * the lock is taken before anything else runs.
 */

export type { LockHolder } from "../io/lock-file.ts";
export { isStale };

/** The lock is held by someone else, or its file cannot be read. */
export class LockedError extends EgpError {
  /** Who holds it; absent when the lock file names no holder. */
  readonly holder: LockHolder | undefined;
  constructor(env: string, file: string, holder: LockHolder | undefined, detail?: string) {
    super(
      "EGP_LOCKED",
      holder
        ? `${env} is locked by pid ${holder.pid} on ${holder.host} since ${holder.startedAt} (${holder.command}); ` +
            `if that run is gone, delete ${file}`
        : `${env} cannot be locked: ${detail ?? `${file} is unreadable`}`,
    );
    this.name = "LockedError";
    this.holder = holder;
  }
}

export interface Lock {
  file: string;
  release(): void;
  /** Set when a stale lock was taken over. */
  tookOver?: LockHolder;
}

export interface LockOptions {
  staleAfterMs?: number;
  /** Waits between tries of a lock that changed hands (tests record them). */
  sleep?: (ms: number) => void;
  random?: () => number;
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export function acquireLock(stateDir: string, env: string, command: string, options: LockOptions = {}): Lock {
  const { staleAfterMs = LOCK_STALE_AFTER_MS, sleep = sleepSync, random = Math.random } = options;
  const folder = join(stateDir, "locks");
  privateDir(stateDir, folder);
  const file = join(folder, `${env}.lock`);
  const holder = holderOfThisProcess(command);
  for (let attempt = 1; ; attempt++) {
    let result: ReturnType<typeof tryTakeLockFile>;
    try {
      result = tryTakeLockFile(file, holder, staleAfterMs);
    } catch (error) {
      if (error instanceof LockFileUnreadableError)
        throw new LockedError(env, file, undefined, error.message);
      throw error;
    }
    if (result.taken) return lockOf(file, holder, result.tookOver);
    if (!result.moved) throw new LockedError(env, file, result.holder);
    if (attempt > LOCK_RETRY_POLICY.retries)
      throw new LockedError(env, file, undefined, `${file} keeps changing hands`);
    sleep(backoff(attempt, LOCK_RETRY_POLICY, random));
  }
}

function lockOf(file: string, holder: LockHolder, tookOver: LockHolder | undefined): Lock {
  return {
    file,
    release: () => releaseLockFile(file, holder),
    ...(tookOver ? { tookOver } : {}),
  };
}

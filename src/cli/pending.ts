// The journal alone: a plan must not load the apply stage (start-up time, test/cli/start-up.test.ts).
import { join } from "node:path";
import { Journal, JournalUnreadableError } from "../apply/journal.ts";
import { isStale, LOCK_STALE_AFTER_MS, type LockHolder, readLockFile } from "../io/lock-file.ts";
import { printable } from "../plan/index.ts";
import { stateDirOf } from "./state-dir.ts";

const discardHint = (env: string) => `discard it with 'egp apply --env ${env} --discard'`;

/**
 * One line saying that an apply of the environment is running (its lock is held by a live process),
 * or that an interrupted one is pending, and how to resume or discard it.
 */
export function pendingNotice(dir: string, env: string): string | undefined {
  let pending: ReturnType<typeof Journal.unfinished>;
  try {
    pending = Journal.unfinished(stateDirOf(dir), env);
  } catch (error) {
    // A plan only reads: it says so and goes on; an apply refuses until the journal is discarded.
    if (error instanceof JournalUnreadableError) return `${error.message}; ${discardHint(env)}.`;
    throw error;
  }
  if (!pending) return undefined;
  const { plan, done, startedAt } = pending.state;
  const running = runningApply(dir, env);
  // A journal and a lock are files on disk: what they say is shown, never obeyed by the terminal.
  if (running)
    return printable(
      `An apply is running for ${env}: plan ${plan.id}, ${done.size} of ${plan.steps.length} steps done so far ` +
        `(pid ${running.pid} on ${running.host}, since ${running.startedAt}); this plan reads the live state as it is now.`,
    );
  return printable(
    `An interrupted apply is pending for ${env}: plan ${plan.id}, ${done.size} of ${plan.steps.length} steps done ` +
      `(started ${startedAt}). Resume it with 'egp apply --env ${env} --resume'; ` +
      `discard it with 'egp apply --env ${env} --discard' (a new 'egp apply --env ${env}' plans afresh and discards it).`,
  );
}

/** The holder of the environment's apply lock, when a live process holds it: the journal is its run's. */
function runningApply(dir: string, env: string): LockHolder | undefined {
  try {
    const read = readLockFile(join(stateDirOf(dir), "locks", `${env}.lock`));
    if (read.kind !== "holder" || isStale(read.holder, Date.now(), LOCK_STALE_AFTER_MS)) return undefined;
    return read.holder;
  } catch {
    // A lock that names no holder: apply reports it; the journal alone speaks here.
    return undefined;
  }
}

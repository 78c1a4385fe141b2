// The journal alone: a plan must not load the apply stage (start-up time, docs/performance.md).
import { Journal, JournalUnreadableError } from "../apply/journal.ts";
import { printable } from "../plan/index.ts";
import { stateDirOf } from "./state-dir.ts";

const discardHint = (env: string) => `discard it with 'egp apply --env ${env} --discard'`;

/** One line saying that an interrupted apply is pending, and how to resume or discard it. */
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
  // A journal is a file on disk: what it says is shown, never obeyed by the terminal.
  return printable(
    `An interrupted apply is pending for ${env}: plan ${plan.id}, ${done.size} of ${plan.steps.length} steps done ` +
      `(started ${startedAt}). Resume it with 'egp apply --env ${env} --resume'; ` +
      `discard it with 'egp apply --env ${env} --discard' (a new 'egp apply --env ${env}' plans afresh and discards it).`,
  );
}

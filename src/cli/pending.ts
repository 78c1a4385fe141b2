import { Journal } from "../apply/index.ts";
import { printable } from "../plan/index.ts";
import { stateDirOf } from "./state-dir.ts";

/** The interrupted apply pending for an environment, if any. */
export function pendingApply(dir: string, env: string) {
  return Journal.unfinished(stateDirOf(dir), env);
}

/** One line saying that an interrupted apply is pending, and how to resume or discard it. */
export function pendingNotice(dir: string, env: string): string | undefined {
  const pending = pendingApply(dir, env);
  if (!pending) return undefined;
  const { plan, done, startedAt } = pending.state;
  // A journal is a file on disk: what it says is shown, never obeyed by the terminal.
  return printable(
    `An interrupted apply is pending for ${env}: plan ${plan.id}, ${done.size} of ${plan.steps.length} steps done ` +
      `(started ${startedAt}). Resume it with 'egp apply --env ${env} --resume'; ` +
      `discard it with 'egp apply --env ${env} --discard' (a new 'egp apply --env ${env}' plans afresh and discards it).`,
  );
}

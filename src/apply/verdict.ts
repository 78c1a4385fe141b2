import type { ApplyOutcome } from "./apply-plan.ts";

/*
 * How an apply or a rollback ended, in the words a person reads: the lines to say, and the failure
 * that makes the run exit non-zero. The CLI and the library share them; the CLI only maps a failure
 * to its exit code.
 */

/** A run that did not end well, and its code: EGP_INTERRUPTED when a signal stopped it, to be finished later. */
export interface RunFailure {
  message: string;
  code: "EGP_INTERRUPTED" | "EGP_CANCELLED" | "EGP_APPLY_FAILED" | "EGP_ROLLBACK_FAILED";
}

export interface Verdict {
  lines: string[];
  failure?: RunFailure;
}

export const resumeHint = (env: string) => `Resume with 'egp apply --env ${env} --resume'.`;

/** The line an apply stopped by a signal prints, while steps may still be in flight. */
export function interruptedApply(env: string, total: number, done: number, inFlight: number): string {
  return (
    `Interrupted: ${done} of ${total} steps done, ${total - done - inFlight} not started, ` +
    `${inFlight} in flight (checked before anything is written again on resume). ${resumeHint(env)}`
  );
}

/** Nothing when the environment converged and every step ran. */
export function applyFailure(env: string, outcome: ApplyOutcome): RunFailure | undefined {
  if (outcome.result === "cancelled") return { message: "apply cancelled", code: "EGP_CANCELLED" };
  if (outcome.result === "interrupted") {
    const { plan, run } = outcome;
    const completed = new Set([...run.done, ...run.reused]).size;
    const stopped = run.stopped.length
      ? `, ${run.stopped.length} stopped between tries (checked before anything is written again on resume)`
      : "";
    return {
      message: `Interrupted: ${completed} of ${plan.steps.length} steps done, ${run.notStarted.length} not started${stopped}. ${resumeHint(env)}`,
      code: "EGP_INTERRUPTED",
    };
  }
  if (outcome.result === "complete" || outcome.result === "incomplete") {
    if (!outcome.converged)
      return { message: "apply did not converge; see the plan above", code: "EGP_APPLY_FAILED" };
    if (outcome.result === "incomplete")
      return { message: "apply finished with failed steps", code: "EGP_APPLY_FAILED" };
  }
  return undefined;
}

/** A journal egp can't read blocks every apply but --discard, which closes it. */
export function unreadableJournal(env: string, message: string): string {
  return `${message}; discard it with 'egp apply --env ${env} --discard'`;
}

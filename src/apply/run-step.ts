import { delayFor, headersOf, isPassing, type RetryPolicy } from "../client/retry.ts";
import { RetryBudget, withRetryBudget } from "../client/retry-budget.ts";
import type { Step } from "../plan/index.ts";
import type { StepFailure } from "./errors.ts";
import type { Journal } from "./journal.ts";
import type { OpContext, OpHandler } from "./ops/types.ts";

/*
 * One step with its tries. A step that fails for a passing reason is tried again after the shared
 * backoff (client/retry.ts); the next try is told the last one may have done its work, so that a
 * create looks before it writes. The step's tries and its calls' retries draw from one budget.
 */

export type StepOutcome =
  | { kind: "done"; output: Record<string, unknown>; ms: number }
  | { kind: "failed"; failure: StepFailure; ms: number }
  /** Stopped between tries by an interrupt: left without an end in the journal. */
  | { kind: "stopped" };

export interface StepRun {
  journal: Journal;
  handler: OpHandler;
  context: (resumed: boolean) => OpContext;
  /** A previous run started the step and did not record its end. */
  resumed: boolean;
  failureOf: (error: unknown) => StepFailure;
  policy: RetryPolicy;
  /** Told once the start is in the journal. */
  onStart: () => void;
  stopping: () => boolean;
  onRetry: (failure: StepFailure, attempt: number) => void;
  sleep: (ms: number) => Promise<void>;
  random?: () => number;
}

export async function runStep(step: Step, run: StepRun): Promise<StepOutcome> {
  const started = Date.now();
  const at = () => new Date().toISOString();
  await run.journal.record({ type: "start", at: at(), step: step.id });
  run.onStart();
  let resumed = run.resumed;
  const budget = new RetryBudget({ tries: 16, ms: 300_000 });
  for (let attempt = 1; ; attempt++) {
    try {
      const output = await withRetryBudget(budget, () => run.handler(run.context(resumed)));
      // On disk before a dependent can start.
      await run.journal.record({ type: "done", at: at(), step: step.id, output });
      return { kind: "done", output, ms: Date.now() - started };
    } catch (error) {
      const failure = run.failureOf(error);
      const again = attempt <= run.policy.retries && isPassing(error);
      if (again && run.stopping()) return { kind: "stopped" };
      const pause = delayFor(attempt, headersOf(error), run.policy, run.random);
      if (again && budget.take(pause)) {
        run.onRetry(failure, attempt);
        resumed = true;
        await run.sleep(pause);
        continue;
      }
      await run.journal.record({ type: "failed", at: at(), step: step.id, error: failure });
      return { kind: "failed", failure, ms: Date.now() - started };
    }
  }
}

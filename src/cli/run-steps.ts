import { type ApplyEvent, type ApplyResult, type ExecuteOptions, executePlan } from "../apply/index.ts";
import type { ApplyOutput } from "./apply-output.ts";
import type { Interrupts } from "./interrupts.ts";

/**
 * Runs a plan's steps as apply and rollback both do: every event to the output, the steps in
 * flight counted for the interrupt's grace period, and the interrupt's summary from the steps
 * done and in flight. The output's step view ends whatever happens.
 */
export async function runSteps(
  options: Omit<ExecuteOptions, "onEvent" | "signal"> & {
    output: ApplyOutput;
    interrupts: Interrupts;
    /** What an interrupt says: steps done, and steps still in flight. */
    interrupted: (done: number, inFlight: number) => string;
  },
): Promise<ApplyResult> {
  const { output, interrupts, interrupted, ...execute } = options;
  const inFlight = new Set<string>();
  const finished = new Set<string>();
  const onEvent = (event: ApplyEvent) => {
    if (event.type === "start") inFlight.add(event.step.id);
    if (event.type === "done" || event.type === "failed" || event.type === "stopped")
      inFlight.delete(event.step.id);
    if (event.type === "done" || event.type === "reused") finished.add(event.step.id);
    output.event(event);
  };
  interrupts.enter({
    name: "steps",
    inFlight: () => inFlight.size,
    summary: () => interrupted(finished.size, inFlight.size),
  });
  const result = await executePlan({ ...execute, onEvent, signal: interrupts.signal }).finally(() =>
    output.stepsEnded(),
  );
  interrupts.enter({ name: "after", env: execute.plan.environment });
  return result;
}

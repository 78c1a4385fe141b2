import { createInterface } from "node:readline/promises";
import { printable } from "../plan/index.ts";
import type { ApplyOutput } from "./apply-output.ts";
import { ExitError } from "./errors.ts";
import type { Interrupts } from "./interrupts.ts";

/*
 * What apply and rollback share at the terminal: the question before anything is written, and how
 * long steps in flight may finish after an interrupt.
 */

export async function confirm(env: string, interrupts: Interrupts, output: ApplyOutput): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: output.prompt });
  // On a terminal, Ctrl-C at the prompt reaches readline, not the process.
  prompt.on("SIGINT", () => interrupts.interrupt());
  try {
    const answer = await prompt.question(
      `\nDo you want to perform these actions on ${printable(env)}?\n  Only 'yes' will be accepted: `,
    );
    return answer.trim() === "yes";
  } finally {
    prompt.close();
  }
}

/** Seconds the steps in flight get to finish after an interrupt (`EGP_INTERRUPT_GRACE_SECONDS`). */
export function graceMs(): number {
  const seconds = Number(process.env.EGP_INTERRUPT_GRACE_SECONDS ?? 30);
  if (!Number.isFinite(seconds) || seconds < 0)
    throw new ExitError("EGP_USAGE", "EGP_INTERRUPT_GRACE_SECONDS: not a number of seconds");
  return seconds * 1000;
}

/*
 * SIGINT and SIGTERM (what CI cancellation sends) during an apply. Before any step starts and after
 * the last one ends, an interrupt ends the run at once: nothing is half done. While steps run, the
 * first one stops new steps and gives the steps in flight a bounded time to finish, with a visible
 * countdown; a second one, or the end of that time, exits at once. The journal is written line by
 * line as steps start and end, so it is consistent however the run ends.
 */

import { ExitError } from "./errors.ts";
import { userErrorOutput } from "./user-errors.ts";

export interface InterruptOptions {
  /** How long steps in flight may take to finish after the first interrupt. */
  graceMs: number;
  /** How often the countdown is shown. */
  tickMs?: number;
  /** The countdown's lines. */
  write(line: string): void;
  /** The last line, when the run ends at once (stderr, as the CLI's other final errors). */
  fail?: (line: string) => void;
  /** Releases what the run holds (the lock); runs before any exit. */
  release(): void;
  exit?: (code: number) => never;
}

export type Phase =
  | { name: "before" }
  | { name: "steps"; inFlight(): number; summary(): string }
  | { name: "after"; env: string };

export class Interrupts {
  private readonly options: InterruptOptions;
  private readonly controller = new AbortController();
  private phase: Phase = { name: "before" };
  private received = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly listener = () => this.interrupt();

  constructor(options: InterruptOptions) {
    this.options = options;
    process.on("SIGINT", this.listener);
    process.on("SIGTERM", this.listener);
  }

  /** Aborted by the first interrupt while steps run: the executor starts no step after it. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  enter(phase: Phase): void {
    this.phase = phase;
  }

  /** Called for each SIGINT or SIGTERM (and for Ctrl-C at a prompt, where the terminal swallows it). */
  interrupt(): void {
    this.received += 1;
    const phase = this.phase;
    if (phase.name === "before") this.exitNow("Interrupted before any step started; nothing was changed.");
    if (phase.name === "after")
      this.exitNow(`Interrupted after every step ran; check the result with 'egp drift --env ${phase.env}'.`);
    if (phase.name !== "steps") return;
    if (this.received > 1) this.exitNow(phase.summary());
    this.controller.abort();
    const deadline = Date.now() + this.options.graceMs;
    const tell = () => {
      const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
      this.options.write(
        `Interrupt received: starting no new steps; waiting for ${phase.inFlight()} step(s) in flight, ${left} s left (interrupt again to stop at once).`,
      );
    };
    tell();
    const tick = this.options.tickMs ?? 5_000;
    this.timer = setInterval(
      () => {
        if (Date.now() >= deadline) this.exitNow(phase.summary());
        tell();
      },
      Math.min(tick, this.options.graceMs),
    );
    this.timer.unref();
  }

  /** Ends the run now: the lock is released and the summary printed; the journal is already on disk. */
  private exitNow(message: string): never {
    this.dispose();
    this.options.release();
    const stopped = new ExitError("EGP_INTERRUPTED", message);
    // Printed as the CLI prints any failure of the family: `egp: EGP_INTERRUPTED …`.
    if (this.options.fail) this.options.fail(message);
    else process.stderr.write(userErrorOutput(stopped)?.text ?? "");
    return (this.options.exit ?? process.exit)(stopped.exitCode);
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    process.off("SIGINT", this.listener);
    process.off("SIGTERM", this.listener);
  }
}

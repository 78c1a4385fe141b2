import type { InlineIoOptions } from "../io/inline-io.ts";
import type { SafeParse } from "../schema/validate.ts";

/**
 * The client's speed machinery, each piece replaceable by its plain variant so that a benchmark can
 * measure what the piece saves (bench/lib/pieces.ts). Absent: what egp ships.
 */
export interface ClientMachinery {
  /** How an answer is checked against its schema: the shortcut of schema/as-is.ts by default; `zodParse` is the plain variant. */
  validate?: SafeParse;
  /**
   * A package download's file writes: on the main thread while they are fast, then in the thread
   * pool (io/inline-io.ts); `threadSwitch: false`, the plain variant, writes in the thread pool from the first.
   */
  sink?: { threadSwitch?: boolean };
}

/** The download sink's I/O options for `machinery`: none for the default. */
export function sinkIoOf(machinery: ClientMachinery): InlineIoOptions | undefined {
  return machinery.sink?.threadSwitch === false ? { strikes: 0 } : undefined;
}

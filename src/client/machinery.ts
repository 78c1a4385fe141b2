import type { SafeParse } from "../schema/validate.ts";

/**
 * The client's speed machinery, each piece replaceable by its plain variant so that a benchmark can
 * measure what the piece saves (bench/lib/pieces.ts). Absent: what egp ships.
 */
export interface ClientMachinery {
  /** How an answer is checked against its schema: the shortcut of schema/as-is.ts by default; `zodParse` is the plain variant. */
  validate?: SafeParse;
}

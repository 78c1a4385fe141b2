import { loadAverage } from "./proc.ts";

/*
 * Fair comparisons (DESIGN §5): egp and its baseline run in the same rounds, one after the other,
 * and the figure is the median of the per-round ratios, so that a burst of load hits both sides of
 * a ratio instead of one side's median. Above a one-minute load of 1.5 (other work on the machine)
 * a bench gives no verdict: its figures are printed, not judged.
 */

export const MIN_ROUNDS = 6;
export const MAX_LOAD = 1.5;

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** The median of `measured / baseline`, round by round. */
export function pairedRatio(measured: readonly number[], baseline: readonly number[]): number {
  return median(measured.map((value, round) => value / (baseline[round] as number)));
}

/** The load a verdict is judged at: the one-minute load before the bench's own work began. */
export function loadBefore(): number {
  return loadAverage();
}

/** `PASS`, `FAIL (why)`, or `NO VERDICT: load L` when the machine was busy with other work. */
export function verdictLine(load: number, pass: boolean, why?: string): string {
  if (load > MAX_LOAD) return `NO VERDICT: load ${load.toFixed(2)}`;
  return pass ? "PASS" : `FAIL${why ? ` (${why})` : ""}`;
}

/** `--rounds N` from the arguments, at least MIN_ROUNDS. */
export function roundsOf(argv: readonly string[]): number {
  const at = argv.indexOf("--rounds");
  const asked = at >= 0 ? Number(argv[at + 1]) : MIN_ROUNDS;
  return Number.isInteger(asked) && asked > MIN_ROUNDS ? asked : MIN_ROUNDS;
}

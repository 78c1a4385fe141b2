import { loadAverage } from "./proc.ts";
import { finish, type Verdict } from "./verdict.ts";

/*
 * Fair comparisons between egp and a reference tool on a shared machine:
 * - at least MIN_ROUNDS rounds, interleaved (each round runs both, and alternates which goes
 *   first), so that a slow spell of the machine hits both sides of a round alike;
 * - the figure is the median of the per-round paired ratios, not a ratio of medians;
 * - above a one-minute load of LOAD_LIMIT, taken before the bench starts its own processes, the
 *   machine is too busy for the figures to count: the verdict is `NO VERDICT: load L`.
 */

export const MIN_ROUNDS = 6;
export const LOAD_LIMIT = 1.5;

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** `ours[i] / theirs[i]` for each round. */
export function pairedRatios(ours: readonly number[], theirs: readonly number[]): number[] {
  if (ours.length !== theirs.length) throw new Error("paired ratios need as many rounds on each side");
  return ours.map((value, index) => value / (theirs[index] as number));
}

/** The rounds to run: what was asked, but never fewer than MIN_ROUNDS. */
export function roundsOf(asked: number | undefined): number {
  return Math.max(MIN_ROUNDS, Number.isFinite(asked) ? Math.floor(asked as number) : MIN_ROUNDS);
}

/** Which side goes first in a round: alternating, egp first in odd rounds. */
export function orderOf<T>(round: number, first: T, second: T): [T, T] {
  return round % 2 === 1 ? [first, second] : [second, first];
}

/** The machine's one-minute load, as the bench found it before starting its own processes. */
export class LoadGate {
  readonly before: number;

  constructor(before = loadAverage()) {
    this.before = before;
  }

  get busy(): boolean {
    return this.before > LOAD_LIMIT;
  }

  line(): string {
    return `load: ${this.before.toFixed(2)}`;
  }
}

/**
 * verdict.ts `finish` (bounded in time; PASS or FAIL), except that on a busy machine the line is
 * `NO VERDICT: load L` (exit code 0: nothing was shown either way). `last` are the figures, printed
 * after it, whatever the verdict; the load line closes them.
 */
export async function finishFair(
  deadlineMs: number,
  gate: LoadGate,
  main: () => Promise<Verdict>,
  last: () => string[],
): Promise<void> {
  await finish(deadlineMs, main, {
    noVerdict: () => (gate.busy ? `NO VERDICT: load ${gate.before.toFixed(2)}` : undefined),
    after: () => {
      for (const line of [...last(), gate.line()]) console.log(line);
    },
  });
}

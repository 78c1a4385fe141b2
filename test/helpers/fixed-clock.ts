/*
 * A preload for the CLI child of a test (`node --import test/helpers/fixed-clock.ts bin/egp.js …`):
 * with FIXED_CLOCK_VARIABLE set to an instant (ISO 8601), `Date` and `Date.now()` in that process
 * start at that instant and run on at the real pace. Freeze nights across daylight-saving changes,
 * expiring acknowledgements and late installs are tested at the instant they need, and egp itself
 * has no switch for its clock: this module is the only reader of the variable. The clock runs
 * rather than stops because deadlines (a request's timeout, a job's wait) are measured on it, and
 * a stopped clock would make them wait for ever.
 *
 * `egp(args, { now })` in cli.ts loads it; an instant that is not a date fails the child at start.
 */

export const FIXED_CLOCK_VARIABLE = "EGP_TEST_FIXED_NOW";

function install(text: string): void {
  const at = Date.parse(text);
  if (Number.isNaN(at)) throw new Error(`${FIXED_CLOCK_VARIABLE}: not an instant: ${JSON.stringify(text)}`);
  const RealDate = Date;
  const started = performance.now();
  const now = (): number => at + Math.floor(performance.now() - started);

  class FixedDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(now());
      else super(...(args as [string | number | Date]));
    }

    static override now(): number {
      return now();
    }

    // A Date made before the preload ran (or by a realm's own Date) is still a Date.
    static override [Symbol.hasInstance](value: unknown): boolean {
      return value instanceof RealDate;
    }
  }

  // `Date()` called as a function gives the time as a string, as it does unpatched.
  globalThis.Date = new Proxy(FixedDate, {
    apply: () => new RealDate(now()).toString(),
  }) as DateConstructor;
}

const fixed = process.env[FIXED_CLOCK_VARIABLE];
if (fixed !== undefined) install(fixed);

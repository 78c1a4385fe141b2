import type { PlanFreeze, RejectedRelease } from "../model.ts";
import { printable } from "./printable.ts";

/*
 * What the release stage says on a plan, at its top where a reviewer starts reading: a freeze in
 * force (the apply will be refused unless an exception lets its actor through) and a rejected
 * release a view left out of its comparison.
 */

/** `03:00Z`, or `2026-12-06 23:00Z` when the instant falls on another day than the local end; none in UTC. */
function utcOf(freeze: PlanFreeze): string {
  const instant = new Date(freeze.untilInstant);
  if (Number.isNaN(instant.getTime())) return printable(freeze.untilInstant);
  const [date, time] = instant.toISOString().split("T") as [string, string];
  const hhmm = `${time.slice(0, 5)}Z`;
  return freeze.until.startsWith(date) ? hhmm : `${date} ${hhmm}`;
}

/** When a freeze ends, in its zone and in UTC: `2026-12-07 04:00 Europe/Berlin (03:00Z)`. */
export function freezeEnd(freeze: PlanFreeze): string {
  const local = `${printable(freeze.until)} ${printable(freeze.zone)}`;
  return freeze.zone === "UTC" ? local : `${local} (${utcOf(freeze)})`;
}

/** `FROZEN until … (reason)` and what it means for the apply; `name` shows the reason (data). */
export function freezeLines(
  freeze: PlanFreeze | undefined,
  name: (text: string) => string = printable,
): string[] {
  if (!freeze) return [];
  return [
    `FROZEN until ${freezeEnd(freeze)} (${name(freeze.reason)})`,
    "Approval is still asked: the freeze is judged when the apply runs, which egp refuses until then unless a freeze exception in freeze-exceptions/ names its actor.",
  ];
}

/** The rejected release a view did not compare, and the gate's line saying who rejected it and why. */
export function rejectedLines(
  rejected: RejectedRelease | undefined,
  name: (text: string) => string = printable,
): string[] {
  if (!rejected) return [];
  return [
    `Release ${name(rejected.release)} is rejected: its packages are not compared; the other kinds are. (${name(rejected.message)})`,
  ];
}

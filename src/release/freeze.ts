import { type FreezeWindow, WEEKDAYS } from "../manifest/freeze.ts";
import type { FreezeException } from "../manifest/freeze-exception.ts";
import type { PlanFreeze } from "../plan/index.ts";

/** The longest an exception may still run at the moment it is used. */
export const EXCEPTION_HORIZON_MS = 24 * 3600_000;

export type FreezeDecision =
  | { state: "open" }
  | { state: "frozen"; window: FreezeWindow; declined: readonly string[] }
  | { state: "excepted"; window: FreezeWindow; exception: FreezeException };

function minutesOf(clock: string): number {
  const [hours = 0, minutes = 0] = clock.split(":").map(Number);
  return hours * 60 + minutes;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The wall clock of `at` in `timeZone`, as milliseconds of a UTC date with the same fields. */
function wallOf(at: number, timeZone: string): number {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
    });
    formatters.set(timeZone, format);
  }
  const field: Record<string, number> = {};
  for (const part of format.formatToParts(at)) field[part.type] = Number(part.value);
  const { year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = field;
  return Date.UTC(year, month - 1, day, hour, minute, second);
}

/** The zone's offset from UTC at `at`, in milliseconds (whole seconds). */
function offsetAt(at: number, timeZone: string): number {
  const second = Math.floor(at / 1000) * 1000;
  return wallOf(second, timeZone) - second;
}

const DAY_MS = 86_400_000;

/**
 * The instants at which the zone's wall clock reads `wall` (a UTC date with the wall clock's fields):
 * one as a rule, two in a repeated hour (earlier first), and none in a skipped one, where the
 * answer is the first instant after the gap.
 */
function instantsOf(wall: number, timeZone: string): { instants: number[]; gapEnd?: number } {
  const before = offsetAt(wall - DAY_MS, timeZone);
  const after = offsetAt(wall + DAY_MS, timeZone);
  const instants = [...new Set([before, after])]
    .map((offset) => wall - offset)
    .filter((at) => offsetAt(at, timeZone) === wall - at)
    .sort((a, b) => a - b);
  if (instants.length > 0) return { instants };
  // In the gap: read with the old offset the wall clock lies after the change, with the new one
  // before it; the change is the first second between the two at which the offset is no longer the old.
  let [low, high] = [wall - after, wall - before];
  while (high - low > 1000) {
    const middle = Math.floor((low + high) / 2000) * 1000;
    if (offsetAt(middle, timeZone) === before) low = middle;
    else high = middle;
  }
  return { instants: [], gapEnd: high };
}

/**
 * The occurrence of the window that holds at `at`: its first instant and the instant after its
 * last frozen minute; undefined when the window does not hold. A weekly window is a wall-clock
 * window in its time zone, and `to` is the last frozen minute. In a repeated hour `from` is its
 * earlier occurrence and `to` its later, so both occurrences are frozen; a bound in a skipped hour
 * is the first instant after the gap.
 */
function occurrenceAt(window: FreezeWindow, at: number): { start: number; end: number } | undefined {
  if (window.kind === "once") {
    const [start, end] = [Date.parse(window.from), Date.parse(window.to)];
    return start <= at && at < end ? { start, end } : undefined;
  }
  const { timeZone } = window;
  const [from, to] = [minutesOf(window.from), minutesOf(window.to)];
  const today = Math.floor(wallOf(at, timeZone) / DAY_MS) * DAY_MS;
  // A window that runs past midnight belongs to the day it starts on, so yesterday's may still hold.
  for (const day of [today - DAY_MS, today]) {
    if (!window.days.includes(WEEKDAYS[new Date(day).getUTCDay()] ?? "sunday")) continue;
    const first = instantsOf(day + from * 60_000, timeZone);
    const last = instantsOf(day + (from <= to ? 0 : DAY_MS) + to * 60_000, timeZone);
    const start = first.instants[0] ?? first.gapEnd ?? 0;
    const end = (last.instants.at(-1) ?? last.gapEnd ?? 0) + 60_000;
    if (start <= at && at < end) return { start, end };
  }
  return undefined;
}

/** Whether `now` falls in the window (see `occurrenceAt` for the wall clock's rules). */
export function inWindow(window: FreezeWindow, now: Date): boolean {
  return occurrenceAt(window, now.getTime()) !== undefined;
}

/** How many windows that meet or overlap are followed before the end is called: weeks of freeze. */
const MAX_CHAINED = 64;

/**
 * When the freeze in force at `now` ends: the first instant at which no window holds, so that a
 * window that starts as (or before) another ends runs the freeze on; undefined when none holds.
 * Each end is the window's own, in its zone's wall clock (`occurrenceAt`), never re-derived.
 */
export function freezeEndOf(windows: readonly FreezeWindow[], now: Date): Date | undefined {
  let at = now.getTime();
  let end: number | undefined;
  for (let chained = 0; chained < MAX_CHAINED; chained++) {
    const ends = windows.flatMap((w) => occurrenceAt(w, at)?.end ?? []);
    if (ends.length === 0) break;
    end = Math.max(...ends);
    at = end;
  }
  return end === undefined ? undefined : new Date(end);
}

/** `2026-12-07 04:00`: the wall clock of `at` in `timeZone`. */
export function wallClockOf(at: Date, timeZone: string): string {
  const iso = new Date(wallOf(at.getTime(), timeZone)).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
}

/**
 * The freeze in force at `now`, whatever exceptions there are: the reason of the window that holds,
 * and when the freeze ends, in that window's zone (`UTC` for a once-window, whose bounds are
 * instants); undefined when no window holds.
 */
export function currentFreeze(windows: readonly FreezeWindow[], now: Date): PlanFreeze | undefined {
  const window = windows.find((w) => inWindow(w, now));
  const end = freezeEndOf(windows, now);
  if (!window || !end) return undefined;
  const zone = window.kind === "weekly" ? window.timeZone : "UTC";
  return { until: wallClockOf(end, zone), zone, untilInstant: end.toISOString(), reason: window.reason };
}

/** The window in words, for refusals, notices and audit records. */
export function describeWindow(window: FreezeWindow): string {
  if (window.kind === "once") return `${window.reason} (${window.from} to ${window.to})`;
  return `${window.reason} (${window.days.join(", ")} ${window.from}–${window.to} ${window.timeZone})`;
}

/** Why an exception of the environment does not let this actor through now; undefined when it does. */
export function exceptionRefusal(exception: FreezeException, actor: string, now: Date): string | undefined {
  const until = Date.parse(exception.until);
  if (!exception.allowedBy.some((allowed) => allowed.toLowerCase() === actor.toLowerCase()))
    return `${exception.file} does not allow ${actor}`;
  if (!(until > now.getTime())) return `${exception.file} expired at ${exception.until}`;
  if (until - now.getTime() > EXCEPTION_HORIZON_MS)
    return `${exception.file} runs until ${exception.until}, more than 24 hours ahead`;
  return undefined;
}

/**
 * Whether an environment is frozen at `now`, and whether one of the exceptions lets `actor` through.
 * Pure: the caller gives the clock and the actor.
 */
export function freezeDecision(
  windows: readonly FreezeWindow[],
  exceptions: readonly FreezeException[],
  environment: string,
  actor: string,
  now: Date,
): FreezeDecision {
  const window = windows.find((w) => inWindow(w, now));
  if (!window) return { state: "open" };
  const mine = exceptions.filter((e) => e.environment === environment);
  const exception = mine.find((e) => exceptionRefusal(e, actor, now) === undefined);
  if (exception) return { state: "excepted", window, exception };
  const declined = mine.map((e) => exceptionRefusal(e, actor, now) ?? "");
  return { state: "frozen", window, declined };
}

import type { FreezeWindow } from "../manifest/freeze.ts";
import type { FreezeException } from "../manifest/freeze-exception.ts";

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

/** The weekday (as the manifests write it) and minute of the day of `now` in `timeZone`. */
function localClock(now: Date, timeZone: string): { day: string; minute: number } {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    weekday: "long",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).formatToParts(now);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  return { day: part("weekday").toLowerCase(), minute: Number(part("hour")) * 60 + Number(part("minute")) };
}

/** Whether `now` falls in the window. `to` is the last frozen minute of a weekly window. */
export function inWindow(window: FreezeWindow, now: Date): boolean {
  if (window.kind === "once") {
    const at = now.getTime();
    return Date.parse(window.from) <= at && at < Date.parse(window.to);
  }
  const { day, minute } = localClock(now, window.timeZone);
  const [from, to] = [minutesOf(window.from), minutesOf(window.to)];
  const starts = (name: string) => window.days.some((d) => d === name);
  if (from <= to) return starts(day) && from <= minute && minute <= to;
  // A window that runs past midnight belongs to the day it starts on: the local day before this one.
  const yesterday = localClock(new Date(now.getTime() - (minute + 1) * 60_000), window.timeZone).day;
  return (starts(day) && minute >= from) || (starts(yesterday) && minute <= to);
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

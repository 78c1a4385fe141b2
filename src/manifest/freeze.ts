import { z } from "zod";

/** The days of a weekly window, as words (DESIGN §4.1: enums are words). */
export const WEEKDAYS = [
  "sunday",
  "monday",
  "tuesday",
  "wednesday",
  "thursday",
  "friday",
  "saturday",
] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** The day words in week order, Monday first, as a refusal lists them. */
const DAY_WORDS = [...WEEKDAYS.slice(1), WEEKDAYS[0]];

/**
 * A day of a weekly window. Checked by a refinement, not an enum: an enum's refusal ends its union
 * option, and zod then reports the once-window's refusals (`unknown key "weekly"`) instead of this one.
 */
const Day = z
  .string()
  .refine((day) => (WEEKDAYS as readonly string[]).includes(day), {
    error: (issue) =>
      `${JSON.stringify(issue.input)} is not a day; use ${DAY_WORDS.slice(0, -1).join(", ")} or ${DAY_WORDS.at(-1)}`,
  })
  .meta({ enum: [...WEEKDAYS] });

const CLOCK = /^([01]\d|2[0-3]):([0-5]\d)$/;
const CLOCK_FORM = 'expected a time of day as "HH:MM" (24 hours), quoted';

/** An instant with its offset (manifests are read with YAML 1.2's core schema: a string). */
export const Instant = z.iso.datetime({
  offset: true,
  error: "expected a date and time with its offset, such as 2026-12-20T00:00:00Z",
});

const Reason = z.string().min(1).describe("Why the environment is frozen; printed with every refusal.");

const TimeZone = z
  .string()
  .refine((zone) => isTimeZone(zone), "unknown time zone; expected an IANA name such as Europe/Berlin")
  .describe("The IANA time zone of from and to (default UTC).");

export const FreezeWindowDocument = z
  .union([
    z
      .strictObject({ from: Instant, to: Instant, reason: Reason })
      .refine((window) => !(Date.parse(window.to) < Date.parse(window.from)), {
        path: ["to"],
        message: "to is before from: the window would never hold",
      }),
    z.strictObject({
      weekly: z.array(Day).min(1).describe("The days the window starts on."),
      from: z.string().regex(CLOCK, CLOCK_FORM),
      to: z.string().regex(CLOCK, CLOCK_FORM),
      timeZone: TimeZone.optional(),
      reason: Reason,
    }),
  ])
  .describe(
    "A period in which apply is refused (rollback is not): from/to instants, or weekly days with from/to times of day (to is the last minute frozen; a window whose to is before its from runs past midnight).",
  );
export type FreezeWindowDocument = z.infer<typeof FreezeWindowDocument>;

export type FreezeWindow =
  | { kind: "once"; from: string; to: string; reason: string }
  | { kind: "weekly"; days: readonly Weekday[]; from: string; to: string; timeZone: string; reason: string };

export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** A window as the rest of egp reads it: one shape per kind, the time zone filled in. */
export function normalizeFreezeWindow(doc: FreezeWindowDocument): FreezeWindow {
  if ("weekly" in doc)
    return {
      kind: "weekly",
      days: [...new Set(doc.weekly as Weekday[])],
      from: doc.from,
      to: doc.to,
      timeZone: doc.timeZone ?? "UTC",
      reason: doc.reason,
    };
  return { kind: "once", from: doc.from, to: doc.to, reason: doc.reason };
}

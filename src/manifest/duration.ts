import { z } from "zod";

/** A duration: seconds as a number (`30`, `0.5`), or a number with its unit (`500ms`, `30s`, `2m`, `1h`). */
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const DURATION_FORMS =
  "expected a duration: seconds as a number, or a number with ms, s, m or h (30s, 500ms, 2m, 1h)";
export const Duration = (what: string) =>
  z
    .union([z.number().positive(DURATION_FORMS), z.string().regex(DURATION, DURATION_FORMS)], {
      error: DURATION_FORMS,
    })
    .optional()
    .describe(what);

/** Milliseconds of a Duration that zod has accepted. */
export function durationMs(value: number | string): number {
  if (typeof value === "number") return Math.round(value * 1000);
  const [, amount = "0", unit = "s"] = DURATION.exec(value) ?? [];
  const scale = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[unit as "ms" | "s" | "m" | "h"];
  return Math.round(Number(amount) * scale);
}

import { z } from "zod";
import { Duration, durationMs } from "./duration.ts";
import type { Reporter } from "./report.ts";
import { type PlacedCheck, VerifyChecksDocument, verifyChecksOf } from "./verify-checks.ts";

/*
 * How an install's result is verified on an environment (docs/apply.md, "Verification"). An install
 * job that succeeded is not an install that is done: a part may land late or be recalculated after
 * it first matched, so a part counts as converged only when two reads `interval` apart are equal to
 * each other and to what the plan expects; it is re-read for at most `settle`, then the package is
 * installed again from the same file, at most `reinstalls` times.
 */

export const VerifyDocument = z
  .strictObject({
    interval: Duration(
      "Time between the two equal reads that make an installed part count as converged (default 2s; 200ms on embedded instances).",
    ),
    settle: Duration(
      "How long an installed part is re-read before it counts as not converged (default 5m; timeouts.verify bounds the whole verification).",
    ),
    reinstalls: z
      .number()
      .int()
      .min(0)
      .max(5)
      .optional()
      .describe(
        "Installs of the same package file again when a part has not converged after settle (default 1; 0: none).",
      ),
    checks: VerifyChecksDocument,
    allowWrites: z
      .boolean()
      .optional()
      .describe("Allows checks that write to the instance (a record probe, which deletes what it creates)."),
    soak: Duration(
      "How long a verified release is watched before it counts as verified (`requiresVerifiedOn`): the apply records it as soaking, and `egp verify` after this time re-checks the environment (default: no soak).",
    ),
  })
  .optional()
  .describe(
    "How an install's result is verified: stable reads, how long they are tried, re-installs, and the soak before it counts as verified.",
  );

export interface VerifySettings {
  intervalMs: number;
  settleMs: number;
  reinstalls: number;
  /** Checks of behaviour after the install (verify-checks.ts); absent where none. */
  checks?: PlacedCheck[];
  /** How long a verification soaks before `egp verify` may record it verified; none when absent. */
  soakMs?: number;
}

export const DEFAULT_VERIFY: VerifySettings = { intervalMs: 2_000, settleMs: 300_000, reinstalls: 1 };
/** The emulator's installs land at once: its stable reads need not wait as a real instance's do. */
export const EMBEDDED_VERIFY_INTERVAL_MS = 200;

const BOUNDS = { interval: 3_600_000, settle: 24 * 3_600_000, soak: 30 * 24 * 3_600_000 } as const;

function msOf(
  doc: z.infer<typeof VerifyDocument>,
  key: keyof typeof BOUNDS,
  report: Reporter,
): number | undefined {
  const value = doc?.[key];
  if (value === undefined) return undefined;
  const ms = durationMs(value);
  if (ms >= 1 && ms <= BOUNDS[key]) return ms;
  report.error(["verify", key], `must be from 1ms to ${BOUNDS[key] / 3_600_000}h`);
  return undefined;
}

export function verifySettingsOf(
  doc: z.infer<typeof VerifyDocument>,
  embedded: boolean,
  report: Reporter,
): VerifySettings {
  const soakMs = msOf(doc, "soak", report);
  return {
    ...(soakMs === undefined ? {} : { soakMs }),
    intervalMs:
      msOf(doc, "interval", report) ?? (embedded ? EMBEDDED_VERIFY_INTERVAL_MS : DEFAULT_VERIFY.intervalMs),
    settleMs: msOf(doc, "settle", report) ?? DEFAULT_VERIFY.settleMs,
    reinstalls: doc?.reinstalls ?? DEFAULT_VERIFY.reinstalls,
    ...(doc?.checks?.length ? { checks: verifyChecksOf(doc.checks, doc.allowWrites, report) } : {}),
  };
}

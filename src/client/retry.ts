import { ConnectionError, type Headers, PlatformError, retryAfterOf } from "./errors.ts";

/*
 * Retry decisions are pure functions, so that they can be tested without a server or a clock.
 * - Only idempotent calls are retried: reads (including POST reads with the GET override), PUT,
 *   DELETE, and the POSTs documented as safe to repeat (login, logout, activate, deactivate).
 * - On 429, 500, 502, 503, 504 and on connection failures (not on a rejected certificate).
 * - `Retry-After` (seconds or an HTTP-date) wins, capped; otherwise exponential backoff with full
 *   jitter and a cap.
 */

export interface RetryPolicy {
  /** Retries after the first attempt. */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Longest wait a `Retry-After` may impose. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  retries: 4,
  baseDelayMs: 250,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 60_000,
});

export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

export interface RetryOutcome {
  idempotent: boolean;
  /** The HTTP status, when a response came back. */
  status?: number;
  /** Set when no response came back. */
  connection?: "failed" | "timeout" | "tls";
}

/** `attempt` is the number of the attempt that just failed, from 1. */
export function shouldRetry(
  outcome: RetryOutcome,
  attempt: number,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
): boolean {
  if (!outcome.idempotent || attempt > policy.retries) return false;
  if (outcome.status !== undefined) return RETRY_STATUSES.has(outcome.status);
  return outcome.connection === "failed" || outcome.connection === "timeout";
}

/** The wait before the attempt after `attempt`, in ms. */
export function delayFor(
  attempt: number,
  headers: Headers | undefined,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  random: () => number = Math.random,
  now: number = Date.now(),
): number {
  const asked = retryAfterOf(headers, now);
  if (asked !== undefined) return Math.min(asked, policy.maxRetryAfterMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/** What a failed attempt tells the retry policy. */
export function outcomeOf(error: unknown, idempotent: boolean): RetryOutcome {
  if (error instanceof ConnectionError) {
    const connection = error.code === "EGP_TLS" ? "tls" : error.code === "EGP_TIMEOUT" ? "timeout" : "failed";
    return { idempotent, connection };
  }
  if (error instanceof PlatformError && error.status !== undefined)
    return { idempotent, status: error.status };
  // Anything else (a shape error, a bug) is not a transient condition.
  return { idempotent, status: 0 };
}

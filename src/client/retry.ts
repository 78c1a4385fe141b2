import pRetry from "p-retry";
import {
  ConnectionError,
  type Headers,
  OutcomeUnknownError,
  PlatformError,
  RateLimitError,
  retryAfterOf,
  TransientError,
} from "./errors.ts";

/*
 * Retry decisions are pure functions, so that they can be tested without a server or a clock.
 * - Only idempotent calls are retried: reads (including POST reads with the GET override), PUT,
 *   DELETE, and the POSTs documented as safe to repeat (login, logout, activate, deactivate).
 * - On 429, 500, 502, 503, 504 and on connection failures (not on a rejected certificate).
 * - `Retry-After` (seconds or an HTTP-date) wins, capped; otherwise exponential backoff with full
 *   jitter and a cap.
 * The same backoff paces the retries above the client (a failed step, a re-read plan, a lock that
 * changed hands), each with its own policy, so that retries from many processes spread out.
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

/** A plan step that failed for a passing reason: eight tries in all (DESIGN §5), at most 4 s apart. */
export const STEP_RETRY_POLICY: RetryPolicy = Object.freeze({
  retries: 7,
  baseDelayMs: 500,
  maxDelayMs: 4_000,
  maxRetryAfterMs: 60_000,
});

/**
 * The reads of a whole plan: each read has its client retries already, so the plan is read again a
 * few times, further apart.
 */
export const PLAN_RETRY_POLICY: RetryPolicy = Object.freeze({
  retries: 4,
  baseDelayMs: 1_000,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
});

/** A lock file that changed hands while it was being taken: it is free again within moments. */
export const LOCK_RETRY_POLICY: RetryPolicy = Object.freeze({
  retries: 20,
  baseDelayMs: 2,
  maxDelayMs: 100,
  maxRetryAfterMs: 0,
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
  return backoff(attempt, policy, random);
}

/** Exponential backoff with full jitter under a cap: the wait after failed attempt `attempt` (from 1), in ms. */
export function backoff(
  attempt: number,
  policy: Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs"> = DEFAULT_RETRY_POLICY,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/** The response headers an error carries, for a `Retry-After`. */
export function headersOf(error: unknown): Headers | undefined {
  return error instanceof PlatformError ? error.headers : undefined;
}

/**
 * A failure that may not happen again (5xx, 429, a lost connection, an unknown outcome): worth
 * another try of a whole operation once the client's own retries of one call have run out.
 */
export function isPassing(error: unknown): boolean {
  return (
    error instanceof TransientError ||
    error instanceof ConnectionError ||
    error instanceof RateLimitError ||
    error instanceof OutcomeUnknownError
  );
}

export interface RetryingOptions {
  policy: RetryPolicy;
  /** Which failures are tried again (default: the passing ones). */
  retryable?: (error: unknown) => boolean;
  /** Told before each wait, with the attempt that failed (from 1) and the wait in ms. */
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/** Runs `run` until it succeeds, fails for good, or the policy's retries are spent. */
export function retrying<T>(run: (attempt: number) => Promise<T>, options: RetryingOptions): Promise<T> {
  const { policy } = options;
  const retryable = options.retryable ?? isPassing;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  return pRetry(run, {
    retries: policy.retries,
    minTimeout: 0,
    // The wait is ours (jitter, Retry-After, an injected clock in tests), not p-retry's.
    shouldRetry: async ({ error, attemptNumber }) => {
      if (attemptNumber > policy.retries || !retryable(error)) return false;
      const delayMs = delayFor(attemptNumber, headersOf(error), policy, options.random);
      options.onRetry?.(error, attemptNumber, delayMs);
      await sleep(delayMs);
      return true;
    },
  });
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

import { describe, expect, it } from "vitest";
import { ConnectionError, RateLimitError, TransientError, ValidationError } from "../../src/client/errors.ts";
import {
  backoff,
  DEFAULT_RETRY_POLICY,
  delayFor,
  isPassing,
  LOCK_RETRY_POLICY,
  outcomeOf,
  PLAN_RETRY_POLICY,
  retrying,
  STEP_RETRY_POLICY,
  shouldRetry,
} from "../../src/client/retry.ts";

const policy = { retries: 3, baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 5000 };

describe("shouldRetry", () => {
  it("retries idempotent calls on 429, 500, 502, 503 and 504 only", () => {
    for (const status of [429, 500, 502, 503, 504]) {
      expect(shouldRetry({ idempotent: true, status }, 1, policy)).toBe(true);
    }
    for (const status of [400, 401, 403, 404, 405, 409, 501, 505, 200]) {
      expect(shouldRetry({ idempotent: true, status }, 1, policy)).toBe(false);
    }
  });

  it("never retries a call that is not idempotent", () => {
    expect(shouldRetry({ idempotent: false, status: 503 }, 1, policy)).toBe(false);
    expect(shouldRetry({ idempotent: false, connection: "failed" }, 1, policy)).toBe(false);
  });

  it("retries connection failures and timeouts, not a rejected certificate", () => {
    expect(shouldRetry({ idempotent: true, connection: "failed" }, 1, policy)).toBe(true);
    expect(shouldRetry({ idempotent: true, connection: "timeout" }, 1, policy)).toBe(true);
    expect(shouldRetry({ idempotent: true, connection: "tls" }, 1, policy)).toBe(false);
  });

  it("stops after the configured number of retries", () => {
    expect(shouldRetry({ idempotent: true, status: 503 }, 3, policy)).toBe(true);
    expect(shouldRetry({ idempotent: true, status: 503 }, 4, policy)).toBe(false);
  });
});

describe("delayFor", () => {
  const now = Date.parse("2026-01-05T09:00:00Z");

  it("honours Retry-After in seconds", () => {
    expect(delayFor(1, { "retry-after": "2" }, policy, () => 0.5, now)).toBe(2000);
    expect(delayFor(4, { "retry-after": "0" }, policy, () => 0.5, now)).toBe(0);
  });

  it("honours Retry-After as an HTTP-date", () => {
    const at = new Date(now + 3000).toUTCString();
    expect(delayFor(1, { "retry-after": at }, policy, () => 0.5, now)).toBe(3000);
    const past = new Date(now - 60_000).toUTCString();
    expect(delayFor(1, { "retry-after": past }, policy, () => 0.5, now)).toBe(0);
  });

  it("caps what Retry-After may impose", () => {
    expect(delayFor(1, { "retry-after": "3600" }, policy, () => 0.5, now)).toBe(5000);
  });

  it("otherwise backs off exponentially with full jitter under a cap", () => {
    expect(delayFor(1, {}, policy, () => 0.999, now)).toBe(99);
    expect(delayFor(2, {}, policy, () => 0.999, now)).toBe(199);
    expect(delayFor(3, {}, policy, () => 0.5, now)).toBe(200);
    expect(delayFor(10, {}, policy, () => 0.999, now)).toBe(999);
    expect(delayFor(3, {}, policy, () => 0, now)).toBe(0);
  });

  it("ignores an unreadable Retry-After", () => {
    expect(delayFor(1, { "retry-after": "soon" }, policy, () => 0.5, now)).toBe(50);
  });

  it("has bounded defaults", () => {
    expect(delayFor(30, undefined, DEFAULT_RETRY_POLICY, () => 0.999999)).toBeLessThan(
      DEFAULT_RETRY_POLICY.maxDelayMs,
    );
  });
});

describe("outcomeOf", () => {
  it("reads the status of an HTTP error and the kind of a connection error", () => {
    const transient = new TransientError({ code: "EGP_UNAVAILABLE", message: "x", status: 503 });
    expect(outcomeOf(transient, true)).toEqual({ idempotent: true, status: 503 });
    const timeout = new ConnectionError({ code: "EGP_TIMEOUT", message: "x", sent: true });
    expect(outcomeOf(timeout, false)).toEqual({ idempotent: false, connection: "timeout" });
    const tls = new ConnectionError({ code: "EGP_TLS", message: "x", sent: false });
    expect(shouldRetry(outcomeOf(tls, true), 1)).toBe(false);
    expect(shouldRetry(outcomeOf(new Error("bug"), true), 1)).toBe(false);
  });
});

describe("backoff", () => {
  it("is the same jittered exponential wait as delayFor's, without a Retry-After", () => {
    for (const attempt of [1, 2, 3, 7]) {
      expect(backoff(attempt, policy, () => 0.3)).toBe(delayFor(attempt, {}, policy, () => 0.3));
    }
    expect(backoff(2, policy, () => 0.5)).toBe(100);
    expect(backoff(9, policy, () => 0.999)).toBe(999);
  });

  it("keeps every policy's waits bounded", () => {
    for (const each of [STEP_RETRY_POLICY, PLAN_RETRY_POLICY, LOCK_RETRY_POLICY]) {
      expect(backoff(50, each, () => 0.999999)).toBeLessThan(each.maxDelayMs);
    }
    expect(backoff(1, STEP_RETRY_POLICY, () => 1)).toBe(500);
    expect(backoff(4, STEP_RETRY_POLICY, () => 1)).toBe(4000);
  });
});

describe("isPassing", () => {
  it("takes 5xx, 429 and lost connections as passing, a refusal as lasting", () => {
    expect(isPassing(new TransientError({ code: "EGP_UNAVAILABLE", message: "x", status: 503 }))).toBe(true);
    expect(isPassing(new RateLimitError({ code: "EGP_RATE_LIMITED", message: "x", status: 429 }))).toBe(true);
    expect(isPassing(new ConnectionError({ code: "EGP_CONNECTION", message: "x", sent: false }))).toBe(true);
    expect(isPassing(new ValidationError({ code: "EGP_VALIDATION", message: "x", status: 400 }))).toBe(false);
    expect(isPassing(new Error("bug"))).toBe(false);
  });
});

describe("retrying", () => {
  const unavailable = () => new TransientError({ code: "EGP_UNAVAILABLE", message: "503", status: 503 });

  it("tries a passing failure again after the policy's jittered waits, recorded instead of slept", async () => {
    const slept: number[] = [];
    const told: Array<[number, number]> = [];
    let tries = 0;
    const value = await retrying(
      async (attempt) => {
        tries = attempt;
        if (attempt < 4) throw unavailable();
        return "read";
      },
      {
        policy,
        random: () => 0.5,
        sleep: async (ms) => {
          slept.push(ms);
        },
        onRetry: (_error, attempt, delayMs) => told.push([attempt, delayMs]),
      },
    );
    expect(value).toBe("read");
    expect(tries).toBe(4);
    expect(slept).toEqual([50, 100, 200]);
    expect(told).toEqual([
      [1, 50],
      [2, 100],
      [3, 200],
    ]);
  });

  it("gives up when the policy's retries are spent, with the last failure", async () => {
    const slept: number[] = [];
    let tries = 0;
    const run = retrying(
      async () => {
        tries += 1;
        throw unavailable();
      },
      { policy, random: () => 0, sleep: async (ms) => void slept.push(ms) },
    );
    await expect(run).rejects.toThrow("503");
    expect(tries).toBe(policy.retries + 1);
    expect(slept).toHaveLength(policy.retries);
  });

  it("does not try a lasting failure again", async () => {
    let tries = 0;
    const run = retrying(
      async () => {
        tries += 1;
        throw new ValidationError({ code: "EGP_VALIDATION", message: "bad", status: 400 });
      },
      { policy, sleep: async () => undefined },
    );
    await expect(run).rejects.toThrow("bad");
    expect(tries).toBe(1);
  });

  it("waits as a Retry-After asks", async () => {
    const slept: number[] = [];
    let tries = 0;
    await retrying(
      async () => {
        tries += 1;
        if (tries === 1)
          throw new RateLimitError({
            code: "EGP_RATE_LIMITED",
            message: "429",
            status: 429,
            headers: { "retry-after": "2" },
          });
        return tries;
      },
      { policy, random: () => 0.5, sleep: async (ms) => void slept.push(ms) },
    );
    expect(slept).toEqual([2000]);
  });
});

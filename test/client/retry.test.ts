import { describe, expect, it } from "vitest";
import { ConnectionError, TransientError } from "../../src/client/errors.ts";
import { DEFAULT_RETRY_POLICY, delayFor, outcomeOf, shouldRetry } from "../../src/client/retry.ts";

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

import { describe, expect, it } from "vitest";
import { ResponseTooLargeError, RetryAfterTooLongError } from "../../src/index.ts";
import { recordingSleep, useClientEmulator } from "./helpers/client.ts";

/*
 * Bounded waits and answers, so that no answer holds a run hostage: a Retry-After beyond the cap fails at once and says what
 * was asked; a JSON answer beyond the size cap fails without being read whole.
 */

describe("bounds", () => {
  const { emulator, client } = useClientEmulator({ seed: "demo-dev" });

  it("Retry-After: 3600 fails at once with the wait it asked for, without sleeping or retrying", async () => {
    const recorder = recordingSleep();
    const c = client({ sleep: recorder.sleep });
    await c.metadata.version();
    emulator().faults.script({
      path: "applicationinfo/version",
      times: 1,
      action: { status: 503, retryAfter: 3600 },
    });
    const failure = c.metadata.version();
    await expect(failure).rejects.toThrow(RetryAfterTooLongError);
    await expect(failure).rejects.toMatchObject({
      code: "EGP_RETRY_AFTER_TOO_LONG",
      status: 503,
      retryAfterMs: 3_600_000,
    });
    await expect(failure).rejects.toThrow(
      /asked to retry after 3600 s \(Retry-After\), longer than the 120 s egp waits/,
    );
    expect(recorder.delays).toEqual([]);
    expect(c.stats().byRoute["POST /core/system/applicationinfo/version"]).toBe(2);
  });

  it("a Retry-After up to the cap is waited for, then the call is retried", async () => {
    const recorder = recordingSleep();
    const c = client({ sleep: recorder.sleep, retry: { maxRetryAfterMs: 5_000 } });
    await c.metadata.version();
    emulator().faults.script({
      path: "applicationinfo/version",
      times: 1,
      action: { status: 429, retryAfter: 5 },
    });
    await expect(c.metadata.version()).resolves.toMatchObject({ Version: "6.14.0" });
    expect(recorder.delays).toEqual([5_000]);
  });

  it("a JSON answer larger than limits.maxResponseBytes fails with EGP_RESPONSE_TOO_LARGE, not retried", async () => {
    const c = client({ limits: { requestsPerSecond: 0, maxResponseBytes: 2_000 } });
    await c.metadata.version();
    const failure = c.users.list();
    await expect(failure).rejects.toThrow(ResponseTooLargeError);
    await expect(failure).rejects.toMatchObject({ code: "EGP_RESPONSE_TOO_LARGE", status: 200 });
    await expect(failure).rejects.toThrow(/larger than limits\.maxResponseBytes \(2000 bytes\)/);
    expect(c.stats().byRoute["POST /core/system/user"]).toBe(1);
  });
});

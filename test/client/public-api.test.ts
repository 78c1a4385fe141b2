import { describe, expect, it } from "vitest";
import * as api from "../../src/index.ts";

describe("the public API", () => {
  it("exports the client, its errors and its pure retry policy", () => {
    expect(typeof api.createClient).toBe("function");
    const errors = [
      api.PlatformError,
      api.AuthError,
      api.ForbiddenError,
      api.NotFoundError,
      api.ValidationError,
      api.RateLimitError,
      api.TransientError,
      api.ConnectionError,
      api.OutcomeUnknownError,
      api.ResponseShapeError,
    ];
    for (const type of errors) expect(typeof type).toBe("function");
    expect(new api.OutcomeUnknownError({ code: "EGP_OUTCOME_UNKNOWN", message: "x" })).toBeInstanceOf(
      api.PlatformError,
    );
    expect(api.shouldRetry({ idempotent: true, status: 503 }, 1)).toBe(true);
    expect(api.backoff(3, api.STEP_RETRY_POLICY, () => 0.5)).toBe(1000);
    expect(typeof api.retrying).toBe("function");
    expect(
      api.isPassing(new api.TransientError({ code: "EGP_UNAVAILABLE", message: "x", status: 503 })),
    ).toBe(true);
    expect(api.ERROR_CODES).toHaveProperty("EGP_OUTCOME_UNKNOWN");
    expect(new api.TransientError({ code: "EGP_UNAVAILABLE", message: "x" })).toBeInstanceOf(api.EgpError);
  });
});

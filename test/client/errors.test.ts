import { describe, expect, it } from "vitest";
import {
  AuthError,
  ConnectionError,
  connectionErrorOf,
  errorFromResponse,
  ForbiddenError,
  NotFoundError,
  OutcomeUnknownError,
  outcomeUnknown,
  PlatformError,
  RateLimitError,
  TransientError,
  ValidationError,
} from "../../src/client/errors.ts";
import { Scrubber } from "../../src/client/redact.ts";

const request = { method: "POST", path: "/platformapi/core/system/user" };

describe("errorFromResponse", () => {
  const cases: Array<[number, new (...args: never[]) => PlatformError, string]> = [
    [401, AuthError, "EGP_UNAUTHORIZED"],
    [403, ForbiddenError, "EGP_FORBIDDEN"],
    [404, NotFoundError, "EGP_NOT_FOUND"],
    [400, ValidationError, "EGP_VALIDATION"],
    [405, ValidationError, "EGP_VALIDATION"],
    [429, RateLimitError, "EGP_RATE_LIMITED"],
    [500, TransientError, "EGP_UNAVAILABLE"],
    [503, TransientError, "EGP_UNAVAILABLE"],
    [501, PlatformError, "EGP_HTTP_ERROR"],
    [302, PlatformError, "EGP_HTTP_ERROR"],
  ];
  it.each(cases)("maps HTTP %i to its class and code", (status, type, code) => {
    const error = errorFromResponse({ ...request, status });
    expect(error).toBeInstanceOf(type);
    expect(error.code).toBe(code);
    expect(error.status).toBe(status);
    expect(error.method).toBe("POST");
    expect(error.path).toBe(request.path);
  });

  it("treats IsSuccessful false on a 200 as a failure, and as rejected credentials on login", () => {
    const messages = [{ MessageKey: "InvalidValue", Description: "FirstName: Required" }];
    const failed = errorFromResponse({ ...request, status: 200, messages });
    expect(failed).toBeInstanceOf(ValidationError);
    expect(failed.code).toBe("EGP_REQUEST_FAILED");
    expect(failed.message).toContain("FirstName: Required");
    expect(failed.validationMessages).toHaveLength(1);
    const login = errorFromResponse({ ...request, status: 200, login: true });
    expect(login).toBeInstanceOf(AuthError);
    expect(login.code).toBe("EGP_LOGIN_FAILED");
  });

  it("reads Retry-After into a rate limit error", () => {
    const error = errorFromResponse({ ...request, status: 429, headers: { "retry-after": "3" } });
    expect((error as RateLimitError).retryAfterMs).toBe(3000);
  });

  it("scrubs secrets the platform quotes from the message and the messages, and drops Authorization", () => {
    const scrubber = new Scrubber(["Tr0ub4dor&3"]);
    const error = errorFromResponse({
      method: "PUT",
      path: "/platformapi/core/system/userpassword",
      status: 400,
      messages: [{ Description: "Password Tr0ub4dor&3 was used before", ErroredValue: "x" }],
      headers: { authorization: 'Platform session-id="ABC"', "content-type": "application/json" },
      scrub: scrubber.scrub,
    });
    const everything = JSON.stringify({ message: error.message, error });
    expect(everything).not.toContain("Tr0ub4dor");
    expect(error.headers.authorization).toBeUndefined();
    expect(error.headers["content-type"]).toBe("application/json");
  });
});

describe("no oracle: text egp composes is never cut by a secret's value", () => {
  it("a one-character password leaves the url, the path and a name as written", () => {
    const scrubber = new Scrubber(["1"]);
    const target = { name: "dev", url: "https://127.0.0.1:4010" };
    const refused = connectionErrorOf(
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:4010"), { code: "ECONNREFUSED" }),
      { method: "GET", path: "/api/core/system/user/1" },
      target,
    );
    expect(refused.message).toContain("https://127.0.0.1:4010");
    expect(refused.message).toContain("GET /api/core/system/user/1");
    expect(refused.message).not.toContain("[redacted]");
    const failed = errorFromResponse({
      method: "GET",
      path: "/api/core/system/user/1",
      status: 404,
      messages: [{ Description: "User user1 not found at 10.0.0.1" }],
      scrub: scrubber.scrub,
    });
    expect(failed.message).toBe(
      "GET /api/core/system/user/1: HTTP 404 not found: User user1 not found at 10.0.0.1",
    );
  });

  it("a secret the platform quotes is removed where it stands whole, at the end of a sentence too", () => {
    const scrubber = new Scrubber(["abc123"]);
    expect(scrubber.scrub("Password abc123. was used; abc123: again; (abc123)")).toBe(
      "Password [redacted]. was used; [redacted]: again; ([redacted])",
    );
    expect(scrubber.scrub("https://abc123.example.com/abc1234 xabc123")).toBe(
      "https://abc123.example.com/abc1234 xabc123",
    );
  });

  it("a name that equals a secret is shown as written where egp composed it", () => {
    const scrubber = new Scrubber(["hunter2"]);
    const failed = errorFromResponse({
      method: "GET",
      path: "/api/core/system/user?$filter=UserName eq 'hunter2'",
      status: 500,
      scrub: scrubber.scrub,
    });
    expect(failed.path).toBe("/api/core/system/user?$filter=UserName eq 'hunter2'");
    expect(failed.message).toContain("'hunter2'");
  });
});

describe("connection failures", () => {
  it("tells what was sent and what was not", () => {
    const refused = connectionErrorOf(Object.assign(new Error("x"), { code: "ECONNREFUSED" }), request);
    expect(refused.code).toBe("EGP_CONNECTION");
    expect(refused.sent).toBe(false);
    const reset = connectionErrorOf(Object.assign(new Error("x"), { code: "UND_ERR_SOCKET" }), request);
    expect(reset.sent).toBe(true);
    const timeout = connectionErrorOf(
      Object.assign(new Error("x"), { code: "UND_ERR_HEADERS_TIMEOUT" }),
      request,
    );
    expect(timeout.code).toBe("EGP_TIMEOUT");
    expect(timeout.sent).toBe(true);
    const tls = connectionErrorOf(
      Object.assign(new Error("x"), { code: "DEPTH_ZERO_SELF_SIGNED_CERT" }),
      request,
    );
    expect(tls.code).toBe("EGP_TLS");
    expect(tls).toBeInstanceOf(ConnectionError);
  });

  it("a certificate egp can't verify: names tls.caFile in the environment's file, verification off last", () => {
    const rejected = connectionErrorOf(
      Object.assign(new Error("unable to verify the first certificate"), {
        code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
      }),
      request,
      { name: "prod", url: "https://grc.example.com" },
    );
    expect(rejected.code).toBe("EGP_TLS");
    expect(rejected.message).toMatch(
      /certificate was rejected \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\); give the CA that issued it as tls\.caFile in environments\/prod\.yaml \(tls\.insecure skips verification: for a test instance only\)$/,
    );
  });

  it("https:// to a plain-HTTP server: says to check the scheme, never to turn verification off", () => {
    const plain = connectionErrorOf(
      Object.assign(new Error("SSL routines:ssl3_get_record:wrong version number"), {
        code: "ERR_SSL_WRONG_VERSION_NUMBER",
      }),
      request,
      { name: "prod", url: "https://grc.example.com" },
    );
    expect(plain.code).toBe("EGP_TLS");
    expect(plain.message).toMatch(/^prod \(https:\/\/grc\.example\.com\): .*doesn't seem to speak TLS/);
    expect(plain.message).not.toMatch(/insecure|certificate/);
  });

  it("an instance that can't be reached: names it and says where its url is", () => {
    const target = { name: "prod", url: "http://grc.example.com" };
    const missing = connectionErrorOf(Object.assign(new Error("x"), { code: "ENOTFOUND" }), request, target);
    expect(missing.message).toMatch(/^prod \(http:\/\/grc\.example\.com\): .*no such host/);
    expect(missing.message).toContain("check that the instance is up and the url in environments/prod.yaml");
  });

  it("wraps an unclear create as OutcomeUnknownError, keeping the cause", () => {
    const cause = errorFromResponse({ ...request, status: 502 });
    const unknown = outcomeUnknown(cause);
    expect(unknown).toBeInstanceOf(OutcomeUnknownError);
    expect(unknown).toBeInstanceOf(PlatformError);
    expect(unknown.code).toBe("EGP_OUTCOME_UNKNOWN");
    expect(unknown.cause).toBe(cause);
    expect(unknown.message).toMatch(/re-read/);
  });
});

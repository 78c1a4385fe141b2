import { describe, expect, it } from "vitest";
import { ClientOptionsError } from "../../src/client/errors.ts";
import { parseClientOptions } from "../../src/client/options.ts";
import { createClient } from "../../src/index.ts";

const minimal = { url: "https://grc.example.com", instance: "Prod", username: "svc", password: "S3cret!pw" };

describe("client options", () => {
  it("fills defaults and freezes the result", () => {
    const options = parseClientOptions(minimal);
    expect(options.scheme).toBe("Platform");
    expect(options.domain).toBe("");
    expect(options.tls).toEqual({ insecure: false });
    expect(options.limits).toEqual({
      concurrency: 4,
      requestsPerSecond: 10,
      packageBytes: 2 * 1024 ** 3,
      maxResponseBytes: 256 * 1024 * 1024,
    });
    expect(options.timeouts).toEqual({
      connectMs: 10_000,
      headersMs: 30_000,
      bodyMs: 120_000,
      requestMs: 120_000,
    });
    expect(options.retry.maxRetryAfterMs).toBe(120_000);
    expect(options.waitNoticeMs).toBe(10_000);
    expect(Object.isFrozen(options)).toBe(true);
    expect(Object.isFrozen(options.timeouts)).toBe(true);
  });

  it("refuses unknown keys, at the top and nested", () => {
    expect(() => parseClientOptions({ ...minimal, passwd: "x" } as never)).toThrow(ClientOptionsError);
    expect(() => parseClientOptions({ ...minimal, tls: { insecur: true } } as never)).toThrow(/insecur/);
  });

  it("refuses bad values with one line per problem, never echoing the password", () => {
    const attempt = () =>
      parseClientOptions({ ...minimal, url: "ftp://x", limits: { concurrency: 0 }, password: 42 } as never);
    expect(attempt).toThrow(/url: url must be an http/);
    expect(attempt).toThrow(/limits\.concurrency/);
    expect(() =>
      parseClientOptions({
        ...minimal,
        url: "https://x",
        username: "S3cret!pw" as never,
        logger: 5 as never,
      }),
    ).toThrow(/^(?!.*S3cret).*logger must be a pino logger/);
  });

  it("refuses a wait hook that is not a function, and a zero timeout", () => {
    expect(() => parseClientOptions({ ...minimal, onWait: "log" } as never)).toThrow(
      /onWait must be a function/,
    );
    expect(() => parseClientOptions({ ...minimal, timeouts: { requestMs: 0 } })).toThrow(
      /timeouts\.requestMs/,
    );
  });

  it("refuses an unreadable CA file at construction", () => {
    expect(() => createClient({ ...minimal, tls: { caFile: "/nonexistent/ca.pem" } })).toThrow(/tls\.caFile/);
  });
});

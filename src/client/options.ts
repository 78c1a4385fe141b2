import type { Logger } from "pino";
import type { Dispatcher } from "undici";
import { z } from "zod";
import { ClientOptionsError } from "./errors.ts";
import type { Sleep } from "./limits.ts";
import type { WaitInfo } from "./waits.ts";

/*
 * Options are an allow-list: an unknown key is an error (a misspelt `insecure` must not silently
 * keep verification off, or on). The parsed object is frozen.
 */

const fn = <T>(what: string) =>
  z.custom<T>((value) => typeof value === "function", `${what} must be a function`);

const positiveMs = z.number().int().positive();

export const ClientOptionsSchema = z
  .object({
    /** How messages name this instance (the CLI passes the environment's name); default: the url's host. */
    name: z.string().min(1).optional(),
    /** `{base_url}`: scheme, host, port and the instance's prefix, if any; not the `/platformapi` part. */
    url: z.url({ protocol: /^https?$/, error: "url must be an http:// or https:// address" }),
    /** How messages show the url: `[redacted]` for one the caller substituted (`${VAR}`); default the url. */
    shownUrl: z.string().min(1).optional(),
    /** InstanceName of the login. */
    instance: z.string().min(1),
    username: z.string().min(1),
    /** UserDomain of the login; empty for local accounts. */
    domain: z.string().default(""),
    password: z.string().min(1),
    /**
     * Other values to keep out of every error and log, as the password is: what the caller
     * substituted into the url, user name or domain (`${VAR}`), which a message would otherwise quote.
     */
    sensitive: z.array(z.string()).default([]),
    /** The scheme word of the Authorization header. */
    scheme: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9._-]*$/, "scheme is one word")
      .default("Platform"),
    tls: z
      .object({
        /** PEM file of the CA that signed the instance's (or the proxy's) certificate. */
        caFile: z.string().min(1).optional(),
        /** Skips certificate verification; the client logs a warning. */
        insecure: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
    timeouts: z
      .object({
        connectMs: positiveMs.default(10_000),
        /** Until the response headers arrive. */
        headersMs: positiveMs.default(30_000),
        /** Longest silence between two chunks of a body: what bounds a package transfer. */
        bodyMs: positiveMs.default(120_000),
        /**
         * Overall deadline of a JSON call, headers and body together, retries included (a server that
         * trickles its answer). Package downloads and uploads are not bound by it: a big file may
         * take long, and `bodyMs` ends one that stalls.
         */
        requestMs: positiveMs.default(120_000),
      })
      .strict()
      .prefault({}),
    limits: z
      .object({
        concurrency: z.number().int().min(1).max(256).default(4),
        /** Largest JSON answer read, counted as it streams in; larger fails with EGP_RESPONSE_TOO_LARGE. */
        maxResponseBytes: z
          .number()
          .int()
          .positive()
          .default(256 * 1024 * 1024),
        /** 0 means no limit. */
        requestsPerSecond: z.number().min(0).default(10),
        /** Largest package file downloaded; larger fails with EGP_PACKAGE_TOO_LARGE and keeps nothing. */
        packageBytes: z
          .number()
          .int()
          .positive()
          .default(2 * 1024 ** 3),
      })
      .strict()
      .prefault({}),
    retry: z
      .object({
        retries: z.number().int().min(0).max(20).default(4),
        baseDelayMs: z.number().int().min(0).default(250),
        maxDelayMs: z.number().int().min(0).default(10_000),
        /** Longest `Retry-After` waited for; a longer one fails at once with EGP_RETRY_AFTER_TOO_LONG. */
        maxRetryAfterMs: z.number().int().min(0).default(120_000),
      })
      .strict()
      .prefault({}),
    /** Pin the base path instead of discovering it: `/platformapi` (6.5 on) or `/api` (before). */
    basePath: z.enum(["/platformapi", "/api"]).optional(),
    /** A pino logger; the client logs through a child that redacts secrets. */
    logger: z.custom<Logger>(
      (value) => typeof value === "object" && value !== null && typeof (value as Logger).child === "function",
      "logger must be a pino logger",
    ),
    /** An undici dispatcher to send requests through (a proxy agent, a MockAgent in tests). */
    dispatcher: z
      .custom<Dispatcher>(
        (value) =>
          typeof value === "object" && value !== null && typeof (value as Dispatcher).dispatch === "function",
        "dispatcher must be an undici Dispatcher",
      )
      .optional(),
    /** Called after every HTTP exchange, for request counting. */
    onRequest: fn<(info: RequestInfo) => void>("onRequest").optional(),
    /**
     * Called every `waitNoticeMs` while a call waits for its answer (retries included), and while a
     * caller waits through `client.waiting()` (package jobs): so that no wait is silent.
     */
    onWait: fn<(info: WaitInfo) => void>("onWait").optional(),
    waitNoticeMs: positiveMs.default(10_000),
    /** Waits between retries; tests pass one that records instead of sleeping. */
    sleep: fn<Sleep>("sleep").optional(),
    /** Jitter source, from 0 to 1. */
    random: fn<() => number>("random").optional(),
  })
  .strict()
  .partial({ logger: true });

export type ClientOptionsInput = z.input<typeof ClientOptionsSchema>;
export type ClientOptions = Readonly<z.output<typeof ClientOptionsSchema>>;

/** What `onRequest` receives after each HTTP exchange. */
export interface RequestInfo {
  method: string;
  /** The path as sent, with the base prefix, without the query. */
  path: string;
  /** The path with ids replaced by `{}`: stable across objects, for counting. */
  route: string;
  /** 1 for the first try of a call, 2 for its first retry, and so on. */
  attempt: number;
  /** Undefined when no response came back. */
  status: number | undefined;
  durationMs: number;
}

export function parseClientOptions(input: ClientOptionsInput): ClientOptions {
  const result = ClientOptionsSchema.safeParse(input);
  if (!result.success) {
    // Issue messages never echo the input, so a misplaced password cannot leak here.
    const problems = result.error.issues.map(
      (issue) => `${issue.path.join(".") || "options"}: ${issue.message}`,
    );
    throw new ClientOptionsError(problems);
  }
  const options = result.data;
  return Object.freeze({
    ...options,
    tls: Object.freeze(options.tls),
    timeouts: Object.freeze(options.timeouts),
    limits: Object.freeze(options.limits),
    retry: Object.freeze(options.retry),
  });
}

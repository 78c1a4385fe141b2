import { request } from "undici";
import { afterAll, afterEach, beforeAll } from "vitest";
import { type Emulator, type EmulatorOptionsInput, startEmulator } from "../../src/emulator/index.ts";

/*
 * Raw HTTP against an emulator, for tests of the emulator itself (the client is tested separately,
 * so these tests must not depend on it).
 */

export interface RawResponse<T = unknown> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  text: string;
}

export interface RawOptions {
  method?: string;
  body?: unknown;
  /** Sends this exact text as the body instead of JSON.stringify(body). */
  rawBody?: string | Uint8Array;
  token?: string;
  headers?: Record<string, string>;
  /** Adds `X-Http-Method-Override: GET` to a POST. */
  override?: boolean;
  prefix?: string;
}

// biome-ignore lint/suspicious/noExplicitAny: tests read envelopes loosely.
export type Json = any;

export class Raw {
  readonly url: string;
  prefix: string;

  constructor(url: string, prefix = "/platformapi") {
    this.url = url;
    this.prefix = prefix;
  }

  async call<T = Json>(path: string, options: RawOptions = {}): Promise<RawResponse<T>> {
    const headers: Record<string, string> = { accept: "application/json", ...options.headers };
    if (options.token) headers.authorization = `Platform session-id="${options.token}"`;
    if (options.override) headers["x-http-method-override"] = "GET";
    let body: string | Uint8Array | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) {
      headers["content-type"] = "application/json";
    }
    // undici's request, not fetch: fetch refuses a body on GET, which the tests need to send.
    const response = await request(`${this.url}${options.prefix ?? this.prefix}${path}`, {
      method: (options.method ?? "GET") as "GET",
      headers,
      body,
    });
    const text = await response.body.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON (XML, for example): the test reads `text`.
    }
    return { status: response.statusCode, headers: response.headers, body: parsed as T, text };
  }

  /** A read as the seed sends it: POST with the GET override. */
  read<T = Json>(path: string, token: string, options: RawOptions = {}): Promise<RawResponse<T>> {
    return this.call<T>(path, { method: "POST", override: true, token, ...options });
  }

  async login(
    username = "sysadmin",
    password = "Password1!",
    instance = "Default",
  ): Promise<RawResponse<Json>> {
    return this.call("/core/security/login", {
      method: "POST",
      body: { InstanceName: instance, Username: username, UserDomain: "", Password: password },
    });
  }

  /** Logs in and returns the token, failing loudly when login does not succeed. */
  async token(username = "sysadmin", password = "Password1!"): Promise<string> {
    const response = await this.login(username, password);
    const token = response.body?.RequestedObject?.SessionToken;
    if (response.status !== 200 || typeof token !== "string") {
      throw new Error(`login as ${username} failed: ${response.status} ${response.text}`);
    }
    return token;
  }
}

/** Starts an emulator on port 0 for the enclosing describe block and closes it afterwards. */
export function useEmulator(options: EmulatorOptionsInput = {}): {
  emulator: () => Emulator;
  raw: () => Raw;
} {
  let emulator: Emulator | undefined;
  let raw: Raw | undefined;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, ...options });
    raw = new Raw(emulator.url);
  });
  afterAll(async () => {
    await emulator?.close();
  });
  return {
    emulator: () => {
      if (!emulator) throw new Error("emulator not started");
      return emulator;
    },
    raw: () => {
      if (!raw) throw new Error("emulator not started");
      return raw;
    },
  };
}

/** A clock that tests move forward by hand. */
export function manualClock(start = Date.parse("2026-01-05T09:00:00Z")) {
  let now = start;
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
  };
}

/**
 * Starts emulators on port 0 for the tests of one file, each closed after the test that started
 * it: `const emulator = emulatorsPerTest(); … await emulator({ seed: "demo-dev" })`.
 */
export function emulatorsPerTest(): (options?: EmulatorOptionsInput) => Promise<Emulator> {
  const running: Emulator[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((emulator) => emulator.close()));
  });
  return async (options = {}) => {
    const started = await startEmulator({ port: 0, ...options });
    running.push(started);
    return started;
  };
}

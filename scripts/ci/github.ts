/*
 * A tiny client for the few GitHub REST endpoints the CI glue uses. GITHUB_API_URL points it at
 * GitHub (or GHES, or a test's local stand-in); the token is sent, never logged or put in an error.
 */

export const DEFAULT_API_URL = "https://api.github.com";

export interface GitHubOptions {
  apiUrl?: string;
  token: string;
  /** Waits before a retry; tests record instead of sleeping. */
  sleep?: (ms: number) => Promise<void>;
  fetch?: typeof fetch;
}

export class GitHubError extends Error {
  readonly status: number;
  readonly method: string;
  readonly path: string;

  constructor(method: string, path: string, status: number, detail: string) {
    super(`GitHub API: ${method} ${path} answered ${status}${detail ? `: ${detail}` : ""}`);
    this.name = "GitHubError";
    this.status = status;
    this.method = method;
    this.path = path;
  }
}

export type Method = "GET" | "POST" | "PATCH";

export interface GitHub {
  request<T>(method: Method, path: string, body?: unknown): Promise<T>;
  /** Every item of a list endpoint, following `Link: rel="next"`. */
  paginate<T>(path: string): Promise<T[]>;
}

const MAX_ATTEMPTS = 3;
const MAX_WAIT_MS = 60_000;

/** GET and PATCH are idempotent; a POST that failed without a clear answer may have created something. */
export function shouldRetry(method: Method, status: number, attempt: number): boolean {
  if (attempt >= MAX_ATTEMPTS) return false;
  if (status === 429) return true;
  return method !== "POST" && [500, 502, 503, 504].includes(status);
}

export function delayFor(attempt: number, retryAfter: string | null): number {
  const seconds = Number(retryAfter);
  if (retryAfter !== null && Number.isFinite(seconds) && seconds >= 0) {
    return Math.min(seconds * 1000, MAX_WAIT_MS);
  }
  return Math.min(1000 * 2 ** (attempt - 1), MAX_WAIT_MS);
}

/** The `rel="next"` target of a Link header, if any. */
export function nextLink(header: string | null): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(",")) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (match) return match[1];
  }
  return undefined;
}

async function describe(response: Response): Promise<string> {
  const text = await response.text();
  try {
    const json = JSON.parse(text) as { message?: string; errors?: { message?: string; code?: string }[] };
    const details = (json.errors ?? []).map((e) => e.message ?? e.code).filter(Boolean);
    return [json.message, ...details].filter(Boolean).join("; ");
  } catch {
    return text.slice(0, 200);
  }
}

export function createGitHub(options: GitHubOptions): GitHub {
  const base = new URL((options.apiUrl ?? DEFAULT_API_URL).replace(/\/+$/, ""));
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const headers = {
    accept: "application/vnd.github+json",
    authorization: `Bearer ${options.token}`,
    "user-agent": "egp-ci",
    "x-github-api-version": "2022-11-28",
  };

  function resolveUrl(pathOrUrl: string): URL {
    if (!/^https?:/.test(pathOrUrl)) return new URL(`${base.href.replace(/\/+$/, "")}${pathOrUrl}`);
    const url = new URL(pathOrUrl);
    // A next link comes from the server; the token only ever goes back to the same origin.
    if (url.origin !== base.origin) throw new Error(`GitHub API: refusing to follow a link to ${url.origin}`);
    return url;
  }

  async function send(method: Method, url: URL, body?: unknown): Promise<Response> {
    const path = url.pathname;
    for (let attempt = 1; ; attempt++) {
      const response = await doFetch(url, {
        method,
        headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (response.ok) return response;
      if (shouldRetry(method, response.status, attempt)) {
        await response.body?.cancel();
        await sleep(delayFor(attempt, response.headers.get("retry-after")));
        continue;
      }
      throw new GitHubError(method, path, response.status, await describe(response));
    }
  }

  return {
    async request<T>(method: Method, path: string, body?: unknown): Promise<T> {
      const response = await send(method, resolveUrl(path), body);
      const text = await response.text();
      return (text ? JSON.parse(text) : undefined) as T;
    },
    async paginate<T>(path: string): Promise<T[]> {
      const items: T[] = [];
      let next: string | undefined = path;
      while (next) {
        const response = await send("GET", resolveUrl(next));
        items.push(...((await response.json()) as T[]));
        next = nextLink(response.headers.get("link"));
      }
      return items;
    },
  };
}

import type { RequestInfo } from "./options.ts";

/*
 * Request counting, so that callers (the planner's tests) can check that the number of requests
 * does not grow with the number of objects. Keys are `METHOD /route/{}` with ids replaced.
 */

export interface ClientStats {
  /** HTTP exchanges, retries and logins included. */
  requests: number;
  retries: number;
  logins: number;
  byRoute: Record<string, number>;
}

export class StatsRecorder {
  private readonly data: ClientStats = { requests: 0, retries: 0, logins: 0, byRoute: {} };
  private readonly hook: ((info: RequestInfo) => void) | undefined;

  constructor(hook?: (info: RequestInfo) => void) {
    this.hook = hook;
  }

  request(info: RequestInfo): void {
    this.data.requests += 1;
    const key = `${info.method} ${info.route}`;
    this.data.byRoute[key] = (this.data.byRoute[key] ?? 0) + 1;
    try {
      this.hook?.(info);
    } catch {
      // A failing counter must not fail the call it counts.
    }
  }

  retry(): void {
    this.data.retries += 1;
  }

  login(): void {
    this.data.logins += 1;
  }

  /** A copy, so that callers can diff two snapshots. */
  snapshot(): ClientStats {
    return { ...this.data, byRoute: { ...this.data.byRoute } };
  }
}

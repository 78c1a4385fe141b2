import { setTimeout as sleep } from "node:timers/promises";
import type { FastifyReply, FastifyRequest } from "fastify";

/*
 * Fault injection, deterministic for a given seed, for tests and chaos runs.
 *
 * Two sources, checked in order on every request:
 * 1. scripted rules, keyed on the count of matching requests ("fail twice, then succeed");
 * 2. random faults at a rate, drawn from a seeded generator.
 *
 * Spec string (`--faults`, or `faults=` of an `embedded:` url): comma-separated `key=value` pairs, e.g.
 *   `seed=7,rate=0.2,statuses=500+502+503+429,reset=0.05,latency=5-20,retryAfter=1,expireAt=40,jobMs=3000`
 * `generateMs=N` and `installMs=N` set one kind of package job's duration (a slow install), over `jobMs`.
 * Three make an install's outcome late, fickle or forgetful for one part of what it changes
 * (packages/install-faults.ts): `installLateMs=N` (the part lands N ms after the job succeeded),
 * `installChangeMs=N` (the part changes N ms after it landed, as a recalculation would) and
 * `installDrop=first|every` (the part is left out of the first install only, or of every install).
 * Two switches stand for what may sit in front of an instance: `noLength=1` (package downloads
 * without a Content-Length, as a proxy that re-encodes them sends them) and `lengthRequired=1`
 * (a body without a Content-Length refused with 411, as some web servers and proxies do).
 */

export type FaultAction =
  | { status: number; retryAfter?: number }
  | { reset: true; after?: boolean }
  | { delayMs: number }
  | { expireSessions: true };

export interface FaultRule {
  method?: string;
  /** A substring or pattern of the request URL. */
  path?: string | RegExp;
  /** Skip this many matching requests first. */
  skip?: number;
  /** Apply to this many matching requests, then stop (default 1). */
  times?: number;
  action: FaultAction;
}

export interface FaultSpec {
  seed: number;
  /** Probability that a request gets a random fault. */
  rate: number;
  /** Statuses random faults choose from. */
  statuses: number[];
  /** Probability that a request's connection is reset (half before, half after processing). */
  reset: number;
  /** Added latency range in ms. */
  latency: [number, number] | null;
  /** Retry-After seconds sent with random 429 and 503 answers. */
  retryAfter: number;
  /** Ends every session when the request count reaches this number. */
  expireAt: number | null;
  /** Duration of package jobs (generate, install), when set. */
  jobMs: number | null;
  /** Duration of package generate jobs, when set; wins over jobMs. */
  generateMs: number | null;
  /** Duration of package install jobs, when set; wins over jobMs. */
  installMs: number | null;
  /** One part of an install lands this many ms after its job succeeded. */
  installLateMs: number | null;
  /** One part of an install changes this many ms after it landed. */
  installChangeMs: number | null;
  /** One part is left out of the first install only, or of every install. */
  installDrop: "first" | "every" | null;
  /** Paths never faulted by the random source (login is faulted unless listed). */
  exempt: string[];
  /** Package downloads are sent without a Content-Length (chunked). */
  noLength: boolean;
  /** A request body without a Content-Length (chunked) is refused with 411 before it is read. */
  lengthRequired: boolean;
}

export const NO_FAULTS: FaultSpec = {
  seed: 1,
  rate: 0,
  statuses: [500, 502, 503, 429],
  reset: 0,
  latency: null,
  retryAfter: 0,
  expireAt: null,
  jobMs: null,
  generateMs: null,
  installMs: null,
  installLateMs: null,
  installChangeMs: null,
  installDrop: null,
  exempt: [],
  noLength: false,
  lengthRequired: false,
};

/** `label` names where the spec was given, in its errors: `--faults`, or an environment's `faults=`. */
export function parseFaultSpec(text: string, label = "--faults"): FaultSpec {
  const spec: FaultSpec = { ...NO_FAULTS, statuses: [...NO_FAULTS.statuses], exempt: [] };
  for (const part of text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [key, value = ""] = part.split("=", 2).map((s) => s.trim());
    const number = Number(value);
    switch (key) {
      case "seed":
      case "rate":
      case "reset":
      case "retryAfter":
        if (!Number.isFinite(number) || number < 0)
          throw new Error(`${label}: ${key} needs a number, got "${value}"`);
        spec[key] = number;
        break;
      case "expireAt":
      case "jobMs":
      case "generateMs":
      case "installMs":
      case "installLateMs":
      case "installChangeMs":
        if (!Number.isInteger(number) || number < 0)
          throw new Error(`${label}: ${key} needs a whole number, got "${value}"`);
        spec[key] = number;
        break;
      case "installDrop":
        if (value !== "first" && value !== "every")
          throw new Error(`${label}: installDrop is first or every, got "${value}"`);
        spec.installDrop = value;
        break;
      case "statuses":
        spec.statuses = value.split("+").map(Number);
        if (spec.statuses.some((s) => !Number.isInteger(s) || s < 400 || s > 599)) {
          throw new Error(`${label}: statuses are 4xx/5xx codes joined by +, got "${value}"`);
        }
        break;
      case "latency": {
        const [min, max] = value.split("-").map(Number);
        if (!Number.isFinite(min) || !Number.isFinite(max ?? min))
          throw new Error(`${label}: latency is MIN-MAX ms, got "${value}"`);
        spec.latency = [min as number, (max ?? min) as number];
        break;
      }
      case "exempt":
        spec.exempt = value.split("+").filter(Boolean);
        break;
      case "noLength":
      case "lengthRequired":
        if (value !== "0" && value !== "1") throw new Error(`${label}: ${key} is 0 or 1, got "${value}"`);
        spec[key] = value === "1";
        break;
      default:
        throw new Error(`${label}: unknown key "${key}"`);
    }
  }
  if (spec.rate > 1 || spec.reset > 1)
    throw new Error(`${label}: rate and reset are probabilities from 0 to 1`);
  return spec;
}

/** mulberry32: small, fast and deterministic. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface ActiveRule extends FaultRule {
  seen: number;
  applied: number;
}

export interface FaultStats {
  requests: number;
  injected: number;
  byKind: Record<string, number>;
}

export class Faults {
  spec: FaultSpec;
  private random: () => number;
  private rules: ActiveRule[] = [];
  readonly stats: FaultStats = { requests: 0, injected: 0, byKind: {} };
  /** Called to end every session (wired to the store by the server). */
  onExpire: () => void = () => undefined;
  #held = 0;
  #settled: Array<() => void> = [];

  constructor(spec: FaultSpec = NO_FAULTS) {
    this.spec = spec;
    this.random = generator(spec.seed);
  }

  /** Replaces the random fault settings. */
  configure(spec: Partial<FaultSpec>): void {
    this.spec = { ...this.spec, ...spec };
    if (spec.seed !== undefined) this.random = generator(spec.seed);
  }

  /** Adds a scripted rule, for example "503 twice on user reads". */
  script(rule: FaultRule): void {
    this.rules.push({ ...rule, seen: 0, applied: 0 });
  }

  clear(): void {
    this.rules = [];
    this.configure({ ...NO_FAULTS });
  }

  /** Ends every session now, as an idle timeout or a restart would. */
  expireSessions(): void {
    this.count("expire");
    this.onExpire();
  }

  private count(kind: string): void {
    this.stats.injected += 1;
    this.stats.byKind[kind] = (this.stats.byKind[kind] ?? 0) + 1;
  }

  /** Chooses the fault for a request, if any. */
  decide(method: string, url: string): FaultAction | undefined {
    this.stats.requests += 1;
    if (this.spec.expireAt !== null && this.stats.requests === this.spec.expireAt) this.expireSessions();
    for (const rule of this.rules) {
      if (rule.method && rule.method.toUpperCase() !== method.toUpperCase()) continue;
      if (rule.path && !(typeof rule.path === "string" ? url.includes(rule.path) : rule.path.test(url)))
        continue;
      rule.seen += 1;
      if (rule.seen <= (rule.skip ?? 0)) continue;
      if (rule.applied >= (rule.times ?? 1)) continue;
      rule.applied += 1;
      return rule.action;
    }
    if (this.spec.exempt.some((p) => url.includes(p))) return undefined;
    const { rate, reset, statuses, retryAfter } = this.spec;
    if (reset > 0 && this.random() < reset) return { reset: true, after: this.random() < 0.5 };
    if (rate > 0 && this.random() < rate && statuses.length > 0) {
      const status = statuses[Math.floor(this.random() * statuses.length)] as number;
      return { status, retryAfter: status === 429 || status === 503 ? retryAfter : undefined };
    }
    return undefined;
  }

  /** True (and counted) when `lengthRequired` refuses this request: a body sent without a length. */
  refusesLength(headers: FastifyRequest["headers"]): boolean {
    if (!this.spec.lengthRequired) return false;
    if (headers["content-length"] !== undefined || headers["transfer-encoding"] === undefined) return false;
    this.count("411");
    return true;
  }

  /** Holds a request for its latency or scripted delay; `settled()` waits for every hold to end. */
  async hold(ms: number): Promise<void> {
    this.#held += 1;
    try {
      await sleep(ms);
    } finally {
      this.#held -= 1;
      if (this.#held === 0) for (const resolve of this.#settled.splice(0)) resolve();
    }
  }

  /** Resolves once no request is held by a delay: a test's wait for "the held one is over". */
  settled(): Promise<void> {
    if (this.#held === 0) return Promise.resolve();
    return new Promise((resolve) => this.#settled.push(resolve));
  }

  latency(): number {
    const range = this.spec.latency;
    if (!range) return 0;
    return range[0] + Math.floor(this.random() * (range[1] - range[0] + 1));
  }

  /** Applies a chosen action: answers or destroys the connection; returns true when it did. */
  apply(action: FaultAction, req: FastifyRequest, reply: FastifyReply): boolean {
    if ("status" in action) {
      this.count(String(action.status));
      if (action.retryAfter !== undefined) reply.header("retry-after", String(action.retryAfter));
      reply.code(action.status);
      return true;
    }
    if ("reset" in action) {
      this.count(action.after ? "reset-after" : "reset");
      if (!action.after) req.raw.socket.destroy();
      return !action.after;
    }
    if ("expireSessions" in action) {
      this.expireSessions();
      return false;
    }
    return false;
  }
}

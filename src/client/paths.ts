import type { Family } from "./route.ts";

/*
 * Which prefix an instance answers:
 * - the base path is `/platformapi` from release 6.5 and `/api` before; the first call (login)
 *   tries `/platformapi`, then `/api`, and the first that does not answer 404 is kept;
 * - the `api-core` calls try `/api` first, where the seed writes them, then the base path; the
 *   answer is cached, so one wrong guess costs one request for the client's lifetime.
 * A prefix is settled by any answer other than 404, since only a missing route answers 404 on
 * every prefix alike.
 */

export type BasePath = "/platformapi" | "/api";

const BASE_CANDIDATES: readonly BasePath[] = ["/platformapi", "/api"];

export class Paths {
  private base: BasePath | undefined;
  private apiCore: string | undefined;

  constructor(pinned?: BasePath) {
    this.base = pinned;
  }

  get basePath(): BasePath | undefined {
    return this.base;
  }

  get apiCorePath(): string | undefined {
    return this.apiCore;
  }

  /** Prefixes to try, in order; one when the answer is known. */
  candidates(family: Family): string[] {
    if (family === "root") return [""];
    if (family === "platform") return this.base ? [this.base] : [...BASE_CANDIDATES];
    if (this.apiCore) return [this.apiCore];
    return [...new Set(["/api", this.base ?? "/platformapi"])];
  }

  /** Records the prefix that answered. */
  settle(family: Family, prefix: string): void {
    if (family === "root") return;
    if (family === "platform") this.base = prefix as BasePath;
    else this.apiCore = prefix;
  }

  isSettled(family: Family): boolean {
    if (family === "root") return true;
    return family === "platform" ? this.base !== undefined : this.apiCore !== undefined;
  }
}

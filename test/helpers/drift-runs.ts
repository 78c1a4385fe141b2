import type { IncomingMessage } from "node:http";
import { expect } from "vitest";

/*
 * What e2e tests of `egp drift` share: a recorder of the requests drift runs send through the
 * forwarding proxies in front of the instances (a drift run must send no write), and the findings
 * of `egp drift --format json`.
 */

/** One request a drift run sent. */
export interface Sent {
  method: string;
  path: string;
  /** POST with `X-Http-Method-Override: GET`: a read. */
  override: boolean;
}

/** A finding as `--format json` lists it (the fields the tests read). */
export interface FindingJson {
  fingerprint: string;
  kind: string;
  object: string;
  part: string;
  partLabel: string;
  severity: string;
  valueHash: string;
  remedy: string;
  onlyOnTarget?: boolean;
  resurfaced?: string;
}

/** Records the requests sent while `during` runs; `record` is a forwarding proxy's `onRequest`. */
export function driftRecorder() {
  const sent: Sent[] = [];
  let recording = false;
  return {
    sent,
    record(url: URL, req: IncomingMessage): false {
      if (recording)
        sent.push({
          method: req.method ?? "",
          path: url.pathname,
          override: String(req.headers["x-http-method-override"] ?? "").toUpperCase() === "GET",
        });
      return false;
    },
    async during<T>(run: () => Promise<T>): Promise<T> {
      recording = true;
      try {
        return await run();
      } finally {
        recording = false;
      }
    },
    /** What was sent that is neither a read (GET, POST with the GET override) nor a login or logout. */
    writes(): Sent[] {
      return sent.filter(
        (r) =>
          r.method !== "GET" &&
          !(r.method === "POST" && r.override) &&
          !(r.method === "POST" && /\/core\/security\/(login|logout)$/.test(r.path)),
      );
    },
  };
}

/** The open findings of a `drift --format json` run, its exit code and its whole JSON. */
export function findingsOf(run: { code: number; stdout: string; stderr: string }) {
  expect(run.stderr).toBe("");
  const json = JSON.parse(run.stdout);
  return { code: run.code, open: json.findings as FindingJson[], json };
}

import { createHash } from "node:crypto";
import { KEY_SEGMENT } from "./store.ts";

/*
 * The record keys egp writes (docs/promotion.md): `releases/<name>` a release, created once;
 * `history/<env>/<id>` one install; `verified/<name>/<env>` a release applied and verified there.
 */

/** An environment's name as one key segment: itself where it is one, else a digest of it. */
export function environmentKey(env: string): string {
  return KEY_SEGMENT.test(env) ? env : `env-${createHash("sha256").update(env).digest("hex").slice(0, 16)}`;
}

export const releaseKey = (name: string) => `releases/${name}`;
export const historyKey = (env: string, id: string) => `history/${environmentKey(env)}/${id}`;
export const historyPrefix = (env: string) => `history/${environmentKey(env)}`;
export const verifiedKey = (name: string, env: string) => `verified/${name}/${environmentKey(env)}`;

import { createHash } from "node:crypto";
import { KEY_SEGMENT } from "./store.ts";

/*
 * The record keys egp writes (docs/promotion.md): `releases/<name>` a release, created once;
 * `history/<env>/<id>` one install; `verified/<name>/<env>` a release applied and verified there.
 */

const HASHED = "env-";

/**
 * An environment's name as one key segment, one to one: itself where it is a segment that does not
 * start with `env-`, else `env-` and the name's whole sha256, so that no name can take another's key.
 */
export function environmentKey(env: string): string {
  if (KEY_SEGMENT.test(env) && !env.startsWith(HASHED)) return env;
  return `${HASHED}${createHash("sha256").update(env).digest("hex")}`;
}

export const releaseKey = (name: string) => `releases/${name}`;
export const historyKey = (env: string, id: string) => `history/${environmentKey(env)}/${id}`;
export const historyPrefix = (env: string) => `history/${environmentKey(env)}`;
export const verifiedKey = (name: string, env: string) => `verified/${name}/${environmentKey(env)}`;

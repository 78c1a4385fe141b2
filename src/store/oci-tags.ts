import { createHash } from "node:crypto";

/*
 * Record keys ↔ OCI tags. A key is lower-case segments joined by '/'; a tag is
 * `[A-Za-z0-9_][A-Za-z0-9._-]{0,127}`. '/' becomes `_S_`: a segment never holds an upper-case
 * letter, so every 'S' of a tag is a separator and the mapping is injective and can be read back.
 * A key whose tag would pass 128 characters keeps its first characters (for people reading the tag
 * list) and ends with `_H_` and the key's sha256: never read back from the tag, its key is in the
 * manifest's annotations.
 */

export const TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
const SEPARATOR = "_S_";
const HASHED = /_H_[0-9a-f]{64}$/;
const KEPT = 128 - "_H_".length - 64;

export function tagOfKey(key: string): string {
  const tag = key.split("/").join(SEPARATOR);
  if (tag.length <= 128) return tag;
  return `${tag.slice(0, KEPT)}_H_${createHash("sha256").update(key).digest("hex")}`;
}

/** True for a tag made from a key too long to be read back from it. */
export function isHashedTag(tag: string): boolean {
  return HASHED.test(tag);
}

/** The key a tag was made from; undefined for a hashed tag or one no key makes (`latest` is `latest`). */
export function keyOfTag(tag: string): string | undefined {
  if (isHashedTag(tag) || /[A-RT-Z]/.test(tag)) return undefined;
  const segments = tag.split(SEPARATOR);
  if (segments.some((segment) => segment === "" || segment.includes("S"))) return undefined;
  return segments.join("/");
}

/** The characters every tag made from a key under `prefix` starts with, at most. */
export function tagPrefixOf(prefix: string): string {
  return `${prefix.split("/").join(SEPARATOR)}${SEPARATOR}`;
}

import { StoreError } from "./store-error.ts";

/*
 * A store record is plain JSON of bounded size and nesting, checked before anything walks it: the
 * code that reads records back (schemas, canonical JSON for digests and signatures) recurses, so a
 * record nested deeper than the stack would end the run instead of being reported by its name.
 */

/** The largest record egp reads back; egp's own are a few kilobytes. */
export const MAX_RECORD_BYTES = 4 * 1024 * 1024;
/** The deepest nesting of objects and arrays a record may have; egp's own stay under 8. */
export const MAX_RECORD_DEPTH = 64;

/** How deep `text` nests, counted without recursion (strings skipped); stops once past `limit`. */
function depthOf(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth += 1;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c === 0x7d || c === 0x5d) depth -= 1;
  }
  return deepest;
}

/** The record `key`'s JSON value; a record too large, too deep, empty or not JSON is refused by name. */
export function parseRecord(text: string, key: string, location: string): unknown {
  const where = `${key} in the store ${location}`;
  if (text.length > MAX_RECORD_BYTES)
    throw new StoreError(
      "EGP_STORE_UNAVAILABLE",
      `${where} is larger than ${MAX_RECORD_BYTES / 1024 / 1024} MiB: not a record egp wrote`,
    );
  if (text.trim() === "")
    throw new StoreError("EGP_STORE_UNAVAILABLE", `${where} is empty (a write that never finished)`);
  if (depthOf(text, MAX_RECORD_DEPTH) > MAX_RECORD_DEPTH)
    throw new StoreError(
      "EGP_STORE_UNAVAILABLE",
      `${where} nests deeper than ${MAX_RECORD_DEPTH} levels: not a record egp wrote`,
    );
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new StoreError("EGP_STORE_UNAVAILABLE", `${where} is not JSON`, { cause: error });
  }
}

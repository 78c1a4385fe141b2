import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/*
 * A large download reads the socket into a fresh buffer of up to 64 KiB per read. Each dies at once,
 * but its memory is freed only when V8 collects the young generation, and a streaming loop
 * allocates too little JavaScript to make that happen often: left alone, a 500 MB download held
 * some 65 MB of dead buffers (bench/transfer.ts). A young-generation collection every few MiB keeps
 * the peak flat and costs about a millisecond. Node exposes `gc` only to contexts created after the
 * flag is set, so the global scope is left as it was.
 */

export type Collect = () => void;

const EVERY_BYTES = 4 * 1024 * 1024;

let minorGc: Collect | null | undefined;

/** The runtime's young-generation collection, or null where it cannot be had. */
export function exposedMinorGc(): Collect | null {
  if (minorGc !== undefined) return minorGc;
  try {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as (options: { type: "minor" }) => void;
    minorGc = typeof gc === "function" ? () => gc({ type: "minor" }) : null;
  } catch {
    minorGc = null;
  }
  return minorGc;
}

/** Returns a counter to call with each chunk's size; it collects every `everyBytes`. */
export function gcNudger(
  collect: Collect | null = exposedMinorGc(),
  everyBytes = EVERY_BYTES,
): (bytes: number) => void {
  let since = 0;
  return (bytes) => {
    since += bytes;
    if (since < everyBytes || !collect) return;
    since = 0;
    collect();
  };
}

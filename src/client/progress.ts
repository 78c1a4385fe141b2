import { Transform } from "node:stream";
import { gcNudger } from "./gc-nudge.ts";

/** Bytes moved so far, and the total when it is known. */
export interface Progress {
  bytes: number;
  total: number | undefined;
}

export type OnProgress = (progress: Progress) => void;

/** A pass-through stream that reports the bytes that went through it. */
export function progressCounter(total: number | undefined, onProgress?: OnProgress): Transform {
  let bytes = 0;
  const nudge = gcNudger();
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      nudge(chunk.length);
      onProgress?.({ bytes, total });
      done(null, chunk);
    },
  });
}

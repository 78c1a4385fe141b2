import { Transform } from "node:stream";

/** Bytes moved so far, and the total when it is known. */
export interface Progress {
  bytes: number;
  total: number | undefined;
}

export type OnProgress = (progress: Progress) => void;

/** A pass-through stream that reports the bytes that went through it. */
export function progressCounter(total: number | undefined, onProgress?: OnProgress): Transform {
  let bytes = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      onProgress?.({ bytes, total });
      done(null, chunk);
    },
  });
}

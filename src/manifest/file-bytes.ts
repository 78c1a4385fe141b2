import type { RepositoryFile } from "./load.ts";

/*
 * A manifest file's text as UTF-8 bytes, encoded once per file object: the state's digest and the
 * manifest cache's key both hash it, and Hash.update of a large string is several times slower
 * than of its bytes (docs/performance.md).
 */
const encoded = new WeakMap<RepositoryFile, Buffer>();

export function bytesOf(file: RepositoryFile): Buffer {
  let bytes = encoded.get(file);
  if (bytes === undefined) {
    bytes = Buffer.from(file.text);
    encoded.set(file, bytes);
  }
  return bytes;
}

import { isUtf8 } from "node:buffer";

/**
 * A file of the repository: its path relative to the root (forward slashes) and its text. It lives
 * with its bytes, in a leaf that the loader and the manifest cache both import.
 */
export interface RepositoryFile {
  path: string;
  text: string;
}

/*
 * A manifest file's text as UTF-8 bytes, encoded once per file object: the state's digest and the
 * manifest cache's key both hash it, and Hash.update of a large string is slower than of its bytes.
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

/**
 * A file as read from disk. Its bytes are what `bytesOf` gives (the encoding of its text, when they
 * are valid UTF-8), and its text is decoded when first asked for: a load whose state comes whole
 * from the cache hashes the bytes and never needs the text.
 */
export function fileRead(path: string, bytes: Buffer): RepositoryFile {
  // Invalid UTF-8 decodes with replacement characters: its bytes are then those of the text.
  if (!isUtf8(bytes)) return { path, text: bytes.toString("utf8") };
  let text: string | undefined;
  const file = {
    path,
    get text(): string {
      text ??= bytes.toString("utf8");
      return text;
    },
  };
  encoded.set(file, bytes);
  return file;
}

/*
 * The release store: where release bundles (package files by sha256), the snapshots taken before
 * installs, and the history of what was installed where are kept, so that any machine with the
 * repository and access to the store can plan a release, roll back or list the history. Blobs are
 * content-addressed and immutable; records are small JSON documents under a key.
 */

/** One segment of a record key: lower-case letters, digits, '.', '_' and '-'. */
export const KEY_SEGMENT = /^[a-z0-9][a-z0-9._-]{0,99}$/;

export interface PutRecordOptions {
  /** Refuse with EGP_STORE_EXISTS when the key already holds a record (a release name). */
  createOnly?: boolean;
  /** Digests of blobs the record refers to: an OCI store lists them as the artifact's layers. */
  blobs?: readonly string[];
}

export interface ReleaseStore {
  /** Where the store is, printable: never a credential. */
  readonly location: string;
  /** Stores a file's bytes under their sha256 (idempotent) and returns it with the size. */
  putFile(path: string): Promise<{ digest: string; size: number }>;
  /**
   * Writes the blob to `path` (through a temp file and a rename) once its sha256 is checked:
   * EGP_STORE_DIGEST_MISMATCH when it differs, EGP_STORE_NOT_FOUND when there is no such blob.
   */
  getFile(digest: string, path: string): Promise<void>;
  hasFile(digest: string): Promise<boolean>;
  /** Keys are KEY_SEGMENTs joined by '/', e.g. `releases/2026-11-r1`, `history/prod/0a1b2c3d4e5f`. */
  putRecord(key: string, value: unknown, options?: PutRecordOptions): Promise<void>;
  /** The record's JSON value, or undefined when there is none. */
  getRecord(key: string): Promise<unknown>;
  /** Every key under `prefix` (segments, without a trailing '/'), sorted. */
  listRecords(prefix: string): Promise<string[]>;
  /** Lets go of what the store holds open (a registry's connections); a folder store has nothing. */
  close?(): Promise<void>;
}

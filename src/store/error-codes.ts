/* Codes of the failures the release store raises; docs/errors.md describes them. */
export const StoreErrorCode = {
  /** No blob or record under that digest or key. */
  NotFound: "EGP_STORE_NOT_FOUND",
  /** A key that is created once (a release name) already exists. */
  Exists: "EGP_STORE_EXISTS",
  /** The bytes read back do not have the digest they are stored under. */
  DigestMismatch: "EGP_STORE_DIGEST_MISMATCH",
  /** The store can't be reached or answered something else than the protocol says. */
  Unavailable: "EGP_STORE_UNAVAILABLE",
  /** `releases.store` in egp.yaml is not a folder path or an oci:// address. */
  BadLocation: "EGP_STORE_LOCATION",
} as const;

export type StoreErrorCode = (typeof StoreErrorCode)[keyof typeof StoreErrorCode];

export const STORE_ERROR_CODES: readonly StoreErrorCode[] = Object.values(StoreErrorCode);

export class StoreError extends Error {
  readonly code: StoreErrorCode;
  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StoreError";
    this.code = code;
  }
}

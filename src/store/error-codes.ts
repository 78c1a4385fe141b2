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
  /** The registry refused the request: no credentials, wrong ones, or not allowed to push. */
  Denied: "EGP_STORE_DENIED",
  /** `releases.store` in egp.yaml is not a folder path or an oci:// address. */
  BadLocation: "EGP_STORE_LOCATION",
  /** EGP_SIGNING_KEY is not an Ed25519 private key. */
  BadSigningKey: "EGP_SIGNING_KEY_UNUSABLE",
} as const;

export type StoreErrorCode = (typeof StoreErrorCode)[keyof typeof StoreErrorCode];

export const STORE_ERROR_CODES: readonly StoreErrorCode[] = Object.values(StoreErrorCode);

export interface StoreErrorOptions {
  cause?: unknown;
  /** The registry's HTTP status, when a registry answered. */
  status?: number;
  /** The codes of the registry's `errors[]` envelope (`MANIFEST_UNKNOWN`, `DENIED`…). */
  registryCodes?: readonly string[];
}

export class StoreError extends Error {
  readonly code: StoreErrorCode;
  readonly status: number | undefined;
  readonly registryCodes: readonly string[];
  constructor(code: StoreErrorCode, message: string, options: StoreErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "StoreError";
    this.code = code;
    this.status = options.status;
    this.registryCodes = options.registryCodes ?? [];
  }
}

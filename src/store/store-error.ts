import { EgpError, type ErrorCode } from "../errors/index.ts";

export interface StoreErrorOptions {
  cause?: unknown;
  /** The registry's HTTP status, when a registry answered. */
  status?: number;
  /** The codes of the registry's `errors[]` envelope (`MANIFEST_UNKNOWN`, `DENIED`…). */
  registryCodes?: readonly string[];
}

/** A failure of the release store (its codes are the table's `EGP_STORE_…` rows and EGP_SIGNING_KEY_UNUSABLE). */
export class StoreError extends EgpError {
  readonly status: number | undefined;
  readonly registryCodes: readonly string[];
  constructor(code: ErrorCode, message: string, options: StoreErrorOptions = {}) {
    super(code, message, { cause: options.cause });
    this.name = "StoreError";
    this.status = options.status;
    this.registryCodes = options.registryCodes ?? [];
  }
}

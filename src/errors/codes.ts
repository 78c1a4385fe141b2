/*
 * Every code egp's failures carry, in one table: its exit code and whether the CLI prints it to a
 * person. Scripts branch on these names (and on the exit code), never on message text, so a name is
 * never changed once shipped. Adding a failure is one row here and one section in docs/errors.md;
 * test/errors.test.ts fails on a row that nothing in src/ throws, or that the page does not describe.
 *
 * `userFacing`: the CLI prints an error with this code as `egp: CODE message`, no stack. The few
 * codes that are not are markers that another code replaces before any caller sees them; one that
 * reaches the CLI anyway is a bug, printed as an internal error with its stack.
 */

export interface CodeRow {
  /** What the CLI exits with when a run ends on this failure. */
  readonly exitCode: number;
  readonly userFacing: boolean;
}

/** A failure a person can act on: one line with its code, exit 1. Almost every code is one. */
const FAILURE: CodeRow = { exitCode: 1, userFacing: true };

export const ERROR_CODES = {
  // The command line
  EGP_USAGE: FAILURE,
  EGP_FILE_SYSTEM: FAILURE,
  EGP_DIFFERENCES: { exitCode: 2, userFacing: true },
  EGP_INTERRUPTED: { exitCode: 130, userFacing: true },
  EGP_CANCELLED: FAILURE,
  EGP_APPLY_FAILED: FAILURE,
  EGP_ROLLBACK_FAILED: FAILURE,
  EGP_STATUS_INCOMPLETE: FAILURE,
  EGP_AUDIT_BROKEN: FAILURE,
  EGP_AUDIT_UNVERIFIABLE: FAILURE,
  EGP_EXPORT_OVERWRITE: FAILURE,
  EGP_EMULATOR_FAILED: FAILURE,

  // HTTP failures: PlatformError and its subclasses
  EGP_LOGIN_FAILED: FAILURE,
  EGP_UNAUTHORIZED: FAILURE,
  EGP_FORBIDDEN: FAILURE,
  EGP_NOT_FOUND: FAILURE,
  EGP_NO_API: FAILURE,
  EGP_VALIDATION: FAILURE,
  EGP_REQUEST_FAILED: FAILURE,
  EGP_RATE_LIMITED: FAILURE,
  EGP_UNAVAILABLE: FAILURE,
  EGP_HTTP_ERROR: FAILURE,
  EGP_CONNECTION: FAILURE,
  EGP_TIMEOUT: FAILURE,
  EGP_TLS: FAILURE,
  EGP_PACKAGE_TOO_LARGE: FAILURE,
  EGP_RESPONSE_TOO_LARGE: FAILURE,
  EGP_RETRY_AFTER_TOO_LONG: FAILURE,
  EGP_OUTCOME_UNKNOWN: FAILURE,

  // The client's other failures
  EGP_RESPONSE_SHAPE: FAILURE,
  EGP_CLIENT_OPTIONS: FAILURE,
  EGP_INVALID_ARGUMENT: FAILURE,
  EGP_TRANSFER: FAILURE,
  EGP_REQUEST_DEADLINE: { exitCode: 1, userFacing: false },

  // Manifests and plans
  EGP_MANIFEST_INVALID: FAILURE,
  EGP_PLAN_INVALID: FAILURE,
  EGP_RECORD_READ_UNAVAILABLE: FAILURE,
  EGP_RECORD_KEY_AMBIGUOUS: FAILURE,
  EGP_RECORD_REF_UNRESOLVED: FAILURE,
  EGP_RECORD_DELETE_LIMIT: FAILURE,
  EGP_PLAN_FILE_INVALID: FAILURE,
  EGP_PLAN_UNKNOWN_KIND: FAILURE,
  EGP_PLAN_STALE: FAILURE,
  EGP_PLAN_MISMATCH: FAILURE,
  EGP_PLAN_SENSITIVE_CHANGED: FAILURE,

  // Apply
  EGP_APPLY_REFUSED: FAILURE,
  EGP_LOCKED: FAILURE,
  EGP_JOURNAL_UNREADABLE: FAILURE,
  EGP_DELETE_REFUSED: FAILURE,
  EGP_ARTIFACT_REJECTED: FAILURE,
  EGP_STEP_FAILED: FAILURE,
  EGP_STEP_INPUT_MISSING: FAILURE,
  EGP_NO_CONNECTION: FAILURE,
  EGP_NO_HANDLER: FAILURE,
  EGP_TARGET_GONE: FAILURE,
  EGP_JOB_TIMEOUT: FAILURE,
  EGP_INSTALL_FAILED: FAILURE,
  EGP_VERIFY_FAILED: FAILURE,
  EGP_INSTALL_DIVERGED: FAILURE,
  EGP_CHECK_FAILED: FAILURE,

  // Releases, rollback and governance
  EGP_RELEASE_NOT_VERIFIED: FAILURE,
  EGP_SOAKING: FAILURE,
  EGP_NOT_SOAKING: FAILURE,
  EGP_SOAK_CHANGED: FAILURE,
  EGP_RELEASE_MISMATCH: FAILURE,
  EGP_RELEASE_REJECTED: FAILURE,
  EGP_FROZEN: FAILURE,
  EGP_ACTOR_MISMATCH: FAILURE,
  EGP_NO_RELEASE: FAILURE,
  EGP_RELEASE_UNUSABLE: FAILURE,
  EGP_RECORD_UNTRUSTED: FAILURE,
  EGP_DRIFT_ACK_REFUSED: FAILURE,
  EGP_NOTHING_CHECKED: FAILURE,

  // The release store
  EGP_STORE_NOT_FOUND: FAILURE,
  EGP_STORE_EXISTS: FAILURE,
  EGP_STORE_DIGEST_MISMATCH: FAILURE,
  EGP_STORE_UNAVAILABLE: FAILURE,
  EGP_STORE_DENIED: FAILURE,
  EGP_STORE_LOCATION: FAILURE,
  EGP_SIGNING_KEY_UNUSABLE: FAILURE,
  EGP_SIGNING_KEY_REQUIRED: FAILURE,

  // Local state under .egp/ and the embedded emulator's data file
  EGP_STATE_UNSAFE: FAILURE,
  EGP_LOCAL_KEY_UNUSABLE: FAILURE,
  EGP_LOCK_UNREADABLE: FAILURE,
  EGP_DATA_BUSY: FAILURE,
  EGP_DATA_UNREADABLE: FAILURE,

  // Export
  EGP_EXPORT_MERGE: FAILURE,
} as const satisfies Record<`EGP_${string}`, CodeRow>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Whether `value` is a code of the table (a cause's `code` may be anything: `ENOSPC`, undici's). */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_CODES, value);
}

/* Codes of the failures the planner raises; docs/errors.md describes them (see apply/error-codes.ts). */
export const PlanErrorCode = {
  Invalid: "EGP_PLAN_INVALID",
  FileInvalid: "EGP_PLAN_FILE_INVALID",
  /** A saved plan names a kind the applying process was not given (a plugin kind). */
  UnknownKind: "EGP_PLAN_UNKNOWN_KIND",
  /** An environment's release has not been applied and verified where `requiresVerifiedOn` asks. */
  ReleaseNotVerified: "EGP_RELEASE_NOT_VERIFIED",
  /** A release's file or record in the store disagrees with the committed `releases/<name>.yaml`. */
  ReleaseMismatch: "EGP_RELEASE_MISMATCH",
  /** The environment names a release that `egp release reject` marked as never to be promoted. */
  ReleaseRejected: "EGP_RELEASE_REJECTED",
  /** An apply in one of the environment's freeze windows, with no exception for its actor. */
  Frozen: "EGP_FROZEN",
} as const;

export type PlanErrorCode = (typeof PlanErrorCode)[keyof typeof PlanErrorCode];

export const PLAN_ERROR_CODES: readonly PlanErrorCode[] = Object.values(PlanErrorCode);

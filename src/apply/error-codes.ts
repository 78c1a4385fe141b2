/*
 * Codes of the failures apply raises outside the client; docs/errors.md describes each (the same
 * test as the client's registry keeps them in step).
 */
export const ApplyErrorCode = {
  PlanStale: "EGP_PLAN_STALE",
  PlanMismatch: "EGP_PLAN_MISMATCH",
  DeleteRefused: "EGP_DELETE_REFUSED",
} as const;

export type ApplyErrorCode = (typeof ApplyErrorCode)[keyof typeof ApplyErrorCode];

export const APPLY_ERROR_CODES: readonly ApplyErrorCode[] = Object.values(ApplyErrorCode);

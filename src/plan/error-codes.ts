/* Codes of the failures the planner raises; docs/errors.md describes them (see apply/error-codes.ts). */
export const PlanErrorCode = {
  Invalid: "EGP_PLAN_INVALID",
  FileInvalid: "EGP_PLAN_FILE_INVALID",
} as const;

export type PlanErrorCode = (typeof PlanErrorCode)[keyof typeof PlanErrorCode];

export const PLAN_ERROR_CODES: readonly PlanErrorCode[] = Object.values(PlanErrorCode);

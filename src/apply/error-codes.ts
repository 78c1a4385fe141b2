/*
 * Codes of the failures apply raises outside the client. Each stage keeps its own registry
 * (client, manifest, plan, apply); docs/errors.md describes the union and one test keeps them in
 * step (test/client/errors.test.ts).
 */
export const ApplyErrorCode = {
  PlanStale: "EGP_PLAN_STALE",
  PlanMismatch: "EGP_PLAN_MISMATCH",
  /** A saved plan's `${VAR}` value is not what it was when the plan was made (or can't be checked). */
  PlanSensitiveChanged: "EGP_PLAN_SENSITIVE_CHANGED",
  DeleteRefused: "EGP_DELETE_REFUSED",
  ArtifactRejected: "EGP_ARTIFACT_REJECTED",
  Locked: "EGP_LOCKED",
  /** An apply asked for what can't be: resuming with nothing pending, a saved plan for another environment. */
  ApplyRefused: "EGP_APPLY_REFUSED",
  /** An interrupted apply's journal whose plan this egp can't read (damaged, or another version's). */
  JournalUnreadable: "EGP_JOURNAL_UNREADABLE",
  /** A step failed for a reason that carries no code of its own (a bug, a local I/O error). */
  StepFailed: "EGP_STEP_FAILED",
  /** A step needs the output of an earlier step (a package id, an artifact) and it is not there. */
  StepInputMissing: "EGP_STEP_INPUT_MISSING",
  /** A step's environment has no connection (a plan naming an environment the run did not open). */
  NoConnection: "EGP_NO_CONNECTION",
  /** A plan names a step op that no registered kind handles (a plan made by an egp with more kinds). */
  NoHandler: "EGP_NO_HANDLER",
  /** The object a step writes was there when planned and is gone now. */
  TargetGone: "EGP_TARGET_GONE",
  /** A platform job (generate, install) did not finish within its time. */
  JobTimeout: "EGP_JOB_TIMEOUT",
  /** The platform ran the install job and reported it failed. */
  InstallFailed: "EGP_INSTALL_FAILED",
  /** After an install, objects still differ from the source. */
  VerifyFailed: "EGP_VERIFY_FAILED",
  /** `egp rollback`: no release record of the environment (or none with the id given). */
  NoRelease: "EGP_NO_RELEASE",
  /** A release record that can't be rolled back to: no snapshot, its file gone, or not a record. */
  ReleaseUnusable: "EGP_RELEASE_UNUSABLE",
  /** An install record in the store is unsigned, or not signed by a trusted key: rollback does not use it. */
  RecordUntrusted: "EGP_RECORD_UNTRUSTED",
} as const;

export type ApplyErrorCode = (typeof ApplyErrorCode)[keyof typeof ApplyErrorCode];

export const APPLY_ERROR_CODES: readonly ApplyErrorCode[] = Object.values(ApplyErrorCode);

export type { ApplyOutcome, ApplyPlanOptions, ApplyReporter, ApplySummary, Replan } from "./apply-plan.ts";
export { ApplyRefusedError, applyPlan, planPatiently } from "./apply-plan.ts";
export { ArtifactError, DEFAULT_ARTIFACT_LIMITS, inspectPackage } from "./artifacts.ts";
export type { ErrorCause, StepFailure } from "./errors.ts";
export { ApplyError, causeOf, StepError } from "./errors.ts";
export type { ApplyEvent, ApplyResult, ExecuteOptions } from "./executor.ts";
export { executePlan, isPassing } from "./executor.ts";
export {
  cacheInstall,
  type HistoryEntry,
  historyToRollBack,
  listHistory,
  publishInstall,
  readHistory,
} from "./history.ts";
export type { JournalEntry, JournalState } from "./journal.ts";
export { Journal, JournalUnreadableError } from "./journal.ts";
export type { Lock, LockHolder } from "./lock.ts";
export { acquireLock, LockedError } from "./lock.ts";
export type { ApplyKinds } from "./ops/index.ts";
export {
  BUILT_IN_APPLY_KINDS,
  BUILT_IN_OPS,
  BUILT_IN_OUTLIVE_PLAN,
  packageOps,
  packageOpsOutlivingPlan,
  recordOps,
  securityParameterOps,
  userOps,
} from "./ops/index.ts";
export type { OpContext, OpHandler, OpRegistry } from "./ops/types.ts";
export { inputOf } from "./ops/types.ts";
export { generatePassword } from "./password.ts";
export type { ReleaseRecord } from "./releases.ts";
export { markRolledBack, ReleaseError } from "./releases.ts";
export type { Carried } from "./resume.ts";
export { assertResumable, carryOver } from "./resume.ts";
export { SensitiveChangedError, unsealSaved } from "./sealed.ts";
export { assertFresh, assertSamePlan, PlanMismatchError, StalePlanError } from "./stale.ts";
export type { RunFailure, Verdict } from "./verdict.ts";
export {
  applyFailure,
  interruptedApply,
  resumeHint,
  unreadableJournal,
} from "./verdict.ts";

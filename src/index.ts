// The library's public API: explicit named exports only.

// Orchestration: plan an environment; change one only through the governed entry points of the
// release stage, which run the gates and write the audit record (docs/architecture.md, "The
// governed entry points"). The executor and the ungoverned apply are not exported.
export type {
  ApplyEvent,
  ApplyOutcome,
  ApplyReporter,
  ApplyResult,
  ApplySummary,
  ExecuteOptions,
} from "./apply/index.ts";
export { ApplyRefusedError } from "./apply/index.ts";
// A kind from outside egp: its parts, bundled in one `Kind`, listed with the built-ins in one
// `createKinds` call and passed as `kinds` (docs/architecture.md, "A kind from outside egp").
export type { OpContext, OpHandler, OpRegistry } from "./apply/ops/types.ts";
export { inputOf } from "./apply/ops/types.ts";
export type { PlatformClient } from "./client/client.ts";
export { createClient } from "./client/client.ts";
export {
  AuthError,
  ClientOptionsError,
  ConnectionError,
  ForbiddenError,
  InvalidArgumentError,
  LoginRefusedError,
  NotFoundError,
  OutcomeUnknownError,
  PackageTooLargeError,
  PlatformError,
  RateLimitError,
  ResponseShapeError,
  ResponseTooLargeError,
  RetryAfterTooLongError,
  TransferError,
  TransientError,
  ValidationError,
} from "./client/errors.ts";
export type { StreamedUpload, UploadSource } from "./client/file-source.ts";
export type { Sleep } from "./client/limits.ts";
export type {
  ComparisonOperator,
  Filter,
  FilterValue,
  ListQuery,
  ODataQuery,
  OrderBy,
  SelectOnly,
} from "./client/odata.ts";
export type { ClientOptions, ClientOptionsInput, RequestInfo } from "./client/options.ts";
export type { BasePath } from "./client/paths.ts";
export type { OnProgress, Progress } from "./client/progress.ts";
export type { MultipartAttachment } from "./client/resources/attachments.ts";
export type { ContentApiResource } from "./client/resources/content-api.ts";
export type {
  ApplicationRead,
  EventActionRead,
  EventRuleRead,
  FieldDefinitionRead,
  LevelLayoutRead,
  LevelRead,
  QuestionnaireRead,
  QuestionnaireRuleRead,
} from "./client/resources/metadata.ts";
export type {
  DownloadOptions,
  PackageRead,
  TransferOptions,
  UploadOptions,
} from "./client/resources/packages.ts";
export type { SecurityParameterRead } from "./client/resources/security-parameters.ts";
export type { UserQuery, UserRead } from "./client/resources/users.ts";
export type { RetryingOptions, RetryOutcome, RetryPolicy } from "./client/retry.ts";
export {
  backoff,
  DEFAULT_RETRY_POLICY,
  delayFor,
  isPassing,
  LOCK_RETRY_POLICY,
  PLAN_RETRY_POLICY,
  retrying,
  STEP_RETRY_POLICY,
  shouldRetry,
} from "./client/retry.ts";
export { currentRetryBudget, RetryBudget, withRetryBudget } from "./client/retry-budget.ts";
export type {
  AttachmentWrapper,
  ContentPost,
  ContentRead,
  ContentWrapper,
  CrossReferenceContent,
  CrossReferenceItem,
  DataGatewayRequest,
  FieldContent,
  FieldContentRequest,
  HistoryEntry,
  ValuesListContent,
} from "./client/schemas/content.ts";
export type { InstanceVersion } from "./client/schemas/version.ts";
export type { WorkflowActionResult, WorkflowTransition } from "./client/schemas/workflow.ts";
export type { ClientStats } from "./client/stats.ts";
export type { EndWait, OnWait, WaitInfo } from "./client/waits.ts";
export {
  type CompareOptions,
  compareEnvironments,
  type EnvironmentComparison,
} from "./compose/compare.ts";
export { type EnvironmentExport, type ExportOptions, exportEnvironment } from "./compose/export.ts";
export type {
  EnvironmentPlan,
  HttpConnections,
  Kind,
  Kinds,
  OpenEnvironment,
  PlanContext,
  PlanEnvironmentOptions,
} from "./compose/index.ts";
export { clientOptionsOf, httpConnections, openProjectStore } from "./compose/index.ts";
export { BUILT_IN_KINDS, builtInKinds, createKinds } from "./compose/kinds.ts";
export { validateProject } from "./compose/validate.ts";
export type { ErrorCode } from "./errors/index.ts";
export { EgpError, ERROR_CODES } from "./errors/index.ts";
export type { ExportContext, KindExporter } from "./export/index.ts";
export { exportManifests } from "./export/index.ts";
export type { DesiredState, EnvironmentConfig, ManifestIssue, SourceLocation } from "./manifest/index.ts";
export { environmentNames, ManifestError } from "./manifest/index.ts";
export type { Kind as DocumentKind, KindDefinition, PruneChoice } from "./manifest/kinds/kind.ts";
export { defineKind, documentsOf, reportRepeats, scoping, sourceOf } from "./manifest/kinds/kind.ts";
// The planner's registries, and the status stage: `egp status` without the CLI (docs/status.md).
export type {
  Change,
  ChangeAction,
  EnvironmentStatus,
  InstallEntry,
  KindPlanner,
  LastInstall,
  PendingApply,
  PendingVerification,
  Plan,
  PlanInput,
  PlanOptions,
  PlanProblem,
  ReadableStatus,
  Runs,
  StatusReport,
  Step,
  UnreadableStatus,
  Verification,
  Wants,
} from "./plan/index.ts";
export {
  driftByKind,
  isDrifted,
  PlanError,
  PlanFileError,
  pipelineOrder,
  readPlanFile,
  statusExitCode,
  statusReport,
  whatRuns,
  writePlanFile,
} from "./plan/index.ts";
export { makeStep } from "./plan/kinds/make-step.ts";
export type { KindSteps } from "./plan/kinds/steps.ts";
export type { PruneInput, PruneVisitor } from "./plan/prune.ts";
export { prunePass } from "./plan/prune.ts";
// The release stage: the governed entry points, and the plans, listings and history the CLI shows.
export { type ApplyOptions, apply } from "./release/apply.ts";
export type { AuditRecord } from "./release/audit.ts";
export { type AuditChain, readAudit } from "./release/audit-chain.ts";
export { type CreateReleaseOptions, createRelease } from "./release/create.ts";
export { FrozenError } from "./release/freeze-gate.ts";
export { installHistory } from "./release/history.ts";
export { planEnvironment, readEnvironment } from "./release/plan.ts";
export { rejectRelease } from "./release/reject.ts";
export { ReleaseGateError } from "./release/release-gate.ts";
export { type ReleaseListing, releaseList } from "./release/release-list.ts";
export {
  type PreparedRollback,
  type RollbackOptions,
  type RollbackOutcome,
  rollback,
} from "./release/rollback.ts";
export { readStatus, type StatusOptions } from "./release/status.ts";
export { type VerificationState, verificationState } from "./release/verified.ts";
export {
  VerifyError,
  type VerifyOptions,
  type VerifyOutcome,
  verifyEnvironment,
  verifyFailure,
} from "./release/verify.ts";
export { hash } from "./state/digest.ts";
export type { LiveState, SharedReads } from "./state/index.ts";
export { liveOf, readLiveState, sharedReads } from "./state/index.ts";
export type { LiveKind, ReadContext } from "./state/kinds/kind.ts";
export { earlyRead, liveKind } from "./state/kinds/kind.ts";
export type {
  Application,
  ChangePasswordRequest,
  Contact,
  ContactsByUser,
  ContentApiEntity,
  ContentApiEntitySet,
  CreateUserRequest,
  EventAction,
  EventRule,
  FieldDefinition,
  Group,
  Level,
  LevelLayout,
  PackageCreateRequest,
  PackageInfo,
  PackageInstallChoice,
  PackageInstallRequest,
  PackageObjectRef,
  Questionnaire,
  QuestionnaireRule,
  SecurityParameter,
  SecurityParameterCreate,
  SecurityParameterUpdate,
  SessionContext,
  Task,
  UpdateUserRequest,
  User,
  UserGroupRequest,
  UserRoleRequest,
  ValidationMessage,
  ValuesListNode,
  ValuesListNodeData,
  ValuesListTree,
  ValuesListValueRead,
} from "./wire/index.ts";
export {
  AccountStatus,
  ContactSubType,
  ContactType,
  Day,
  FieldType,
  InstallMethod,
  InstallOption,
  PeriodType,
  TranslationOption,
} from "./wire/index.ts";

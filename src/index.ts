// The library's public API: explicit named exports only.

export type { PlatformClient } from "./client/client.ts";
export { createClient } from "./client/client.ts";
export { ERROR_CODES, ErrorCode } from "./client/error-codes.ts";
export {
  AuthError,
  ClientOptionsError,
  ConnectionError,
  ForbiddenError,
  InvalidArgumentError,
  LoginRefusedError,
  NotFoundError,
  OutcomeUnknownError,
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
export type { PromoteOptions, PromoteResult } from "./client/promote.ts";
export { promotePackage } from "./client/promote.ts";
export type { MultipartAttachment } from "./client/resources/attachments.ts";
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
export type { RetryOutcome, RetryPolicy } from "./client/retry.ts";
export { DEFAULT_RETRY_POLICY, delayFor, shouldRetry } from "./client/retry.ts";
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
export type {
  Application,
  ChangePasswordRequest,
  Contact,
  ContactsByUser,
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

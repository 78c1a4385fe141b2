export { canonicalJson, same } from "./compare.ts";
export type {
  ComparedObject,
  CompareInput,
  Comparison,
  ComparisonStatus,
  ComparisonSummary,
} from "./compare-instances.ts";
export {
  COMPARISON_FORMAT_VERSION,
  compareInstances,
  comparisonDiffers,
} from "./compare-instances.ts";
export { comparePlans, compareResumed, planConsistency, planDifferences } from "./compare-plans.ts";
export { globMatcher } from "./glob.ts";
export type { InstallIdentity } from "./install-name.ts";
export { installName } from "./install-name.ts";
export type { PlanKinds } from "./kinds/index.ts";
export {
  BUILT_IN_PLAN_KINDS,
  BUILT_IN_PLANNERS,
  packagePlanner,
  recordPlanner,
  securityParameterPlanner,
  userPlanner,
} from "./kinds/index.ts";
export type {
  KindPlanner,
  ParametersAfterPlan,
  PlanInput,
  PlannedState,
  PlanOptions,
  PlanProblem,
} from "./kinds/kind.ts";
export { formatPlanProblem, PlanError } from "./kinds/kind.ts";
export { makeStep } from "./kinds/make-step.ts";
export { resolveObjectGuid } from "./kinds/package.ts";
export { FieldWriteValue } from "./kinds/record-steps.ts";
export type {
  BuiltInChangeKind,
  BuiltInStepOp,
  KindSteps,
  StepInputIn,
  StepInputOf,
  StepInputs,
  StepKinds,
} from "./kinds/steps.ts";
export {
  BUILT_IN_STEP_INPUTS,
  BUILT_IN_STEPS,
  packageSteps,
  recordSteps,
  securityParameterSteps,
  stepKinds,
  userSteps,
} from "./kinds/steps.ts";
export type {
  AmbiguousKey,
  Change,
  ChangeAction,
  ChangeKind,
  FieldChange,
  Plan,
  PlanFreeze,
  PlanSummary,
  RejectedRelease,
  SensitiveInput,
  Step,
  StepOp,
  UnmanagedResource,
} from "./model.ts";
export { PLAN_FORMAT_VERSION, SENSITIVE, SealedValue } from "./model.ts";
export type {
  DiffCounts,
  ObjectDiff,
  PartDifference,
  PartStatus,
  PartType,
  PropertyDifference,
  Severity,
} from "./package-diff.ts";
export { describeDifference, diffObject } from "./package-diff.ts";
export { packageSideDigests, SIDE_SEPARATOR } from "./package-sides.ts";
export type { PasswordRules } from "./password-rules.ts";
export { passwordRulesOf, passwordShortfalls } from "./password-rules.ts";
export { countsAsDrift, planChanges, planRefusals, summarize } from "./plan-changes.ts";
export { PlanFileError, readPlanFile, sealedDigest, writePlanFile } from "./plan-file.ts";
export {
  renderComparisonJson,
  renderComparisonMarkdown,
  renderComparisonText,
} from "./render/comparison.ts";
export { renderComparisonHtml } from "./render/comparison-html.ts";
export { renderJson } from "./render/json.ts";
export { DEFAULT_MARKDOWN_LIMIT, renderMarkdown } from "./render/markdown.ts";
export { freezeEnd } from "./render/notices.ts";
export { partLabel } from "./render/parts.ts";
export { printable, printableLines } from "./render/printable.ts";
export {
  renderStatusHtml,
  renderStatusJson,
  renderStatusMarkdown,
  renderStatusText,
} from "./render/status.ts";
export { renderText } from "./render/text.ts";
export type { RenderOptions } from "./render/values.ts";
export { sealSensitive, unsealStep } from "./sensitive.ts";
export type {
  EnvironmentStatus,
  InstallEntry,
  LastInstall,
  PendingApply,
  PendingVerification,
  ReadableStatus,
  Runs,
  StatusReport,
  UnreadableStatus,
  Verification,
  Wants,
} from "./status.ts";
export {
  driftByKind,
  isDrifted,
  pipelineOrder,
  statusExitCode,
  statusReport,
  whatRuns,
} from "./status.ts";
export type { Target } from "./targets.ts";
export { keysToRead, narrowDesired, parseTargets, selects } from "./targets.ts";

/*
 * Environment files and manifest documents: parse YAML with positions, substitute ${VAR}, validate
 * (zod, then normalize, then rules) and hand the planner one frozen DesiredState per environment.
 */
export type { CachedState, CacheStats, ManifestCacheOptions, StateRead } from "./cache.ts";
export { codeFingerprint, ManifestCache } from "./cache.ts";
export type { DesiredState } from "./desired-state.ts";
export type { Endpoint, EnvironmentConfig, EnvironmentDocument } from "./environment.ts";
export {
  DEFAULT_LIMITS,
  DEFAULT_TIMEOUTS,
  DEFAULT_WAITS,
  EMBEDDED_DEFAULT_PASSWORD,
  EMBEDDED_USERNAME,
} from "./environment.ts";
export type { FieldSource, ManifestIssue, Severity, SourceLocation } from "./errors.ts";
export { formatManifestError, ManifestError } from "./errors.ts";
export { instanceIdentity, instanceIdentityOf } from "./instance-identity.ts";
export type { SchemaFile } from "./json-schema.ts";
export { manifestDocumentSchema, schemaFiles } from "./json-schema.ts";
export type {
  DesiredDocument,
  DesiredLists,
  DesiredPrunePolicy,
  DocumentKinds,
  PrunablePlural,
  PruneOptions,
} from "./kinds/index.ts";
export {
  BUILT_IN_DOCUMENT_KINDS,
  documentKinds,
  fieldWordsOf,
  NO_PRUNING,
  packageKind,
  recordKind,
  securityParameterKind,
  userKind,
} from "./kinds/index.ts";
export type { DesiredAbsent, FieldWord, FieldWords } from "./kinds/kind.ts";
export type {
  AssumedInstallCode,
  DesiredPackage,
  DesiredPackageObject,
  InstallChoice,
  InstallCodeOverrides,
  InstallWords,
  PackageObjectType,
} from "./kinds/package.ts";
export {
  INSTALL_METHOD_CODES,
  INSTALL_OPTION_CODES,
  PACKAGE_OBJECT_TYPES,
  TRANSLATION_OPTION_CODES,
} from "./kinds/package.ts";
export type { PipelinePlace } from "./pipeline.ts";
export { pipelinePlaces } from "./pipeline.ts";
export { loadProject, PROJECT_FILE, type ProjectOptions, parseProject, type StoreSpec } from "./project.ts";
/** A PrunePolicy's choice for users, and for security parameters. */
export type UserPrune = import("./kinds/index.ts").PruneOptions["users"];
export type SecurityParameterPrune = import("./kinds/index.ts").PruneOptions["securityParameters"];
export type { RepositoryFile } from "./file-bytes.ts";
export type { DesiredSecurityParameter, SecurityParameterFields } from "./kinds/security-parameter.ts";
export { DAY_CODES, PERIOD_UNIT_CODES, PLATFORM_SECURITY_PARAMETERS } from "./kinds/security-parameter.ts";
export type { DesiredContact, DesiredUser, NamedId, UserFields } from "./kinds/user.ts";
export { CONTACT_SUBTYPE_CODES, CONTACT_TYPE_CODES, STATUS_CODES } from "./kinds/user.ts";
export type { LoadOptions, LoadResult, LoadStats, Repository } from "./load.ts";
export {
  environmentNameOf,
  environmentNames,
  environmentOf,
  loadEnvironment,
  loadRepository,
  readRepository,
  selectManifests,
  stateKeyFor,
  validateRepository,
} from "./load.ts";
export type { DesiredRelease } from "./release-file.ts";
export {
  parseReleaseFile,
  RELEASE_NAME,
  ReleaseFile,
  readReleaseFile,
  releaseFilePath,
  releaseNameProblem,
} from "./release-file.ts";
export { Secret } from "./secret.ts";
export type { SensitiveValue } from "./sensitive.ts";
export type { Variables } from "./substitute.ts";

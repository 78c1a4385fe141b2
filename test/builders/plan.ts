import type {
  DesiredPackage,
  DesiredSecurityParameter,
  DesiredState,
  DesiredUser,
  EnvironmentConfig,
} from "../../src/manifest/index.ts";
import { NO_PRUNING, Secret } from "../../src/manifest/index.ts";
import type { LivePackageObject, LiveState, LiveUser } from "../../src/state/live-state.ts";
import type { SecurityParameter, User } from "../../src/wire/index.ts";

/*
 * Small builders for the planner's inputs (changesets' FakeFullState): each takes only what a test
 * cares about and fills the rest with a plausible default.
 */

const at = (line: number) => ({ file: "manifests/test.yaml", line, column: 1 });

export function environment(name = "prod", extra: Partial<EnvironmentConfig> = {}): EnvironmentConfig {
  return {
    name,
    file: `environments/${name}.yaml`,
    source: { file: `environments/${name}.yaml`, line: 1, column: 1 },
    endpoint: { kind: "http", url: "https://grc.example.com" },
    instance: "Production",
    auth: { username: "svc_gitops", domain: "", password: new Secret("s3cret-Pa55"), scheme: "Platform" },
    tls: { insecure: false },
    roles: { "System Administrator": 1, "General User": 2, "Risk Manager": 17 },
    groups: { Everyone: 1, Administrators: 2, "Risk Owners": 42 },
    domains: {},
    limits: { concurrency: 4, requestsPerSecond: 10 },
    ...extra,
  } as EnvironmentConfig;
}

export function desired(parts: Partial<DesiredState> = {}): DesiredState {
  return {
    environment: environment(),
    securityParameters: [],
    users: [],
    packages: [],
    prune: NO_PRUNING,
    digest: "manifest-digest",
    files: [],
    ...parts,
  };
}

export function desiredUser(userName: string, parts: Partial<DesiredUser> = {}): DesiredUser {
  return {
    kind: "User",
    key: userName.toLowerCase(),
    userName,
    fields: { FirstName: "Jane", LastName: "Doe" },
    source: at(1),
    ...parts,
  };
}

export function desiredParameter(
  name: string,
  fields: DesiredSecurityParameter["fields"] = {},
): DesiredSecurityParameter {
  return { kind: "SecurityParameter", name, fields, source: at(2) };
}

export function desiredPackage(name: string, applications: string[]): DesiredPackage {
  return {
    kind: "Package",
    name,
    objects: applications.map((app) => ({
      by: "name" as const,
      type: "Application" as const,
      name: app,
      install: {
        method: "createAndUpdate",
        layout: "keep",
        translations: "none",
        InstallMethod: 2,
        InstallOption: 1,
        TranslationOption: 0,
      },
      source: at(3),
    })),
    inactivateUnusedFields: false,
    prefixInactivatedFields: null,
    source: at(3),
  } as DesiredPackage;
}

export function liveUser(
  id: number,
  userName: string,
  fields: Partial<User> = {},
  extra: Partial<LiveUser> = {},
): LiveUser {
  return {
    user: {
      Id: id,
      DisplayName: null,
      FirstName: "Jane",
      MiddleName: null,
      LastName: "Doe",
      LastLoginDate: null,
      UserName: userName,
      AccountStatus: 1,
      DomainId: null,
      SecurityId: 2,
      Locale: null,
      TimeZoneId: "UTC",
      Address: null,
      Company: null,
      Title: null,
      AdditionalNote: null,
      BusinessUnit: null,
      Department: null,
      DistinguishedName: null,
      ForcePasswordChange: false,
      Type: 1,
      LanguageId: 1,
      DefaultHomeDashboardId: -1,
      DefaultHomeWorkspaceId: -1,
      UpdateInformation: null,
      ...fields,
    },
    contacts: [],
    groups: [],
    ...extra,
  };
}

export function liveParameter(
  id: number,
  name: string,
  fields: Partial<SecurityParameter> = {},
): SecurityParameter {
  return {
    Id: id,
    Alias: name.replace(/\W+/g, "_"),
    GUID: `guid-${id}`,
    Name: name,
    Description: null,
    MinPasswordLength: 8,
    AlphaCharsRequired: 1,
    NumericCharsRequired: 1,
    UppercaseCharsRequired: 1,
    LowercaseCharsRequired: 1,
    SpecialCharsRequired: 0,
    PasswordChangeInterval: 90,
    PasswordChangeLimit: false,
    GraceLogins: 3,
    MaximumFailedLoginAttempts: 5,
    PreviousPasswordsDisallowed: 3,
    LockoutPeriod: 15,
    LockoutPeriodType: 2,
    SessionTimeout: 30,
    SessionTimeoutType: 2,
    StaticSessionTimeout: null,
    PasswordExpirationNotice: 7,
    AutomaticAccountDeactivation: 0,
    IsLimitByTimeFrame: false,
    PermittedFromTime: null,
    PermittedToTime: null,
    IsDisallowedByDays: false,
    DisallowedSessionDays: [],
    IsDisallowedByDates: false,
    DisallowedDates: [],
    Default: false,
    TimeZoneCode: "UTC",
    SecurityParameterType: 1,
    ...fields,
  };
}

export function packageObject(
  guid: string,
  name: string,
  fingerprint: string,
  parts: Record<string, string> = {},
): LivePackageObject {
  return {
    guid,
    type: "Application",
    name,
    fingerprint,
    parts: { levels: 1, fields: Object.keys(parts).length },
    partFingerprints: parts,
  };
}

export function live(parts: Partial<LiveState> = {}): LiveState {
  return {
    environment: "prod",
    securityParameters: [
      liveParameter(1, "Default Administrative User"),
      liveParameter(2, "General User Parameter", { Default: true }),
    ],
    users: [liveUser(1, "svc_gitops", { FirstName: "Service", LastName: "Account" })],
    groupsRead: [1, 2, 42],
    packages: { objects: {}, applicationsByName: {} },
    digest: "live-digest",
    partDigests: { securityParameters: "p", users: "u", packages: "k" },
    ...parts,
  };
}

export const CREATED_AT = "2026-11-21T12:00:00.000Z";

import type { SecurityParameter, User } from "../../wire/index.ts";
import { guidFor } from "../catalogue/guid.ts";
import type { Store, StoreData, UserRecord } from "../store.ts";

/*
 * The facts every seed shares (DESIGN §4.3), so that docs and tests can rely on them:
 * sysadmin (id 1), roles 1 and 2, groups 1 and 2, security parameters 1, 2 and 3.
 */

export const FIXED = {
  adminUserName: "sysadmin",
  adminUserId: 1,
  defaultAdminPassword: "Password1!",
  roles: { systemAdministrator: 1, generalUser: 2 },
  groups: { everyone: 1, administrators: 2 },
  parameters: { administrative: 1, generalUser: 2, services: 3 },
} as const;

/**
 * The time a seed's objects were made. A seed is the same state on every start, so that two
 * emulators started from it (two CI jobs, each on a fresh runner) report the same live state, and a
 * plan made against one still applies to the other; time only enters through later writes.
 */
export const SEED_TIME = "2026-01-01T00:00:00.000Z";

export function emptyData(instance: string, release: string, seed: string): StoreData {
  return {
    format: 1,
    instance,
    release,
    seed,
    counters: {},
    users: {},
    securityParameters: {},
    roles: {},
    groups: {},
    tasks: {},
  };
}

/** A complete parameter with the platform's defaults, overridden by `fields`. */
export function parameter(
  id: number,
  fields: Partial<SecurityParameter> & { Name: string },
): SecurityParameter {
  return {
    Id: id,
    Alias: fields.Name.replace(/[^A-Za-z0-9]+/g, "_"),
    GUID: guidFor(`egp-seed:security-parameter:${id}:${fields.Name}`),
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

/** A complete user with the platform's defaults, overridden by `fields`. */
export function userDefaults(
  id: number,
  fields: Partial<User> & { FirstName: string; LastName: string },
): User {
  const { FirstName, LastName, UserName, ...rest } = fields;
  // Every key in the interface's order (as a created user has them): the other fields given replace
  // the defaults in place, where names spread after them would come last in every answer.
  return {
    Id: id,
    DisplayName: `${LastName}, ${FirstName}`,
    FirstName,
    MiddleName: null,
    LastName,
    LastLoginDate: null,
    UserName: UserName ?? `${LastName}${FirstName.charAt(0)}`.toLowerCase(),
    AccountStatus: 1,
    DomainId: null,
    SecurityId: FIXED.parameters.generalUser,
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
    ...rest,
  };
}

/** Adds a user with a password to the store, as a seed does (no validation). */
export function seedUser(
  store: Store,
  fields: Partial<User> & { FirstName: string; LastName: string },
  password: string,
  memberships: { roles?: number[]; groups?: number[] } = {},
): UserRecord {
  const id = store.nextId("user");
  const now = SEED_TIME;
  const salt = store.newSalt();
  const record: UserRecord = {
    user: userDefaults(id, {
      ...fields,
      UpdateInformation: { CreateDate: now, UpdateDate: now, CreateLogin: 1, UpdateLogin: 1 },
    }),
    roles: memberships.roles ?? [FIXED.roles.generalUser],
    groups: memberships.groups ?? [FIXED.groups.everyone],
    contacts: [],
    passwordHashes: [store.hashPassword(salt, password)],
    salt,
    failedLogins: 0,
    lockedUntil: null,
  };
  store.data.users[String(id)] = record;
  return record;
}

export function seedFixedFacts(store: Store, adminPassword: string): void {
  const { data } = store;
  data.roles["1"] = { Id: 1, Name: "System Administrator" };
  data.roles["2"] = { Id: 2, Name: "General User" };
  data.counters.role = 2;
  data.groups["1"] = { Id: 1, Name: "Everyone" };
  data.groups["2"] = { Id: 2, Name: "Administrators" };
  data.counters.group = 2;

  const params = [
    parameter(1, {
      Name: "Default Administrative User",
      Description: "Password and session policy for administrators.",
      MinPasswordLength: 10,
      SpecialCharsRequired: 1,
      LockoutPeriod: 30,
    }),
    parameter(2, {
      Name: "General User Parameter",
      Description: "Password and session policy for everyday users.",
      MaximumFailedLoginAttempts: 3,
      Default: true,
    }),
    parameter(3, {
      Name: "Services Parameter",
      Description: "Policy for service accounts used by integrations.",
      MinPasswordLength: 16,
      PasswordChangeInterval: 365,
      MaximumFailedLoginAttempts: 10,
      SessionTimeout: 8,
      SessionTimeoutType: 1,
      SecurityParameterType: 2,
    }),
  ];
  for (const p of params) data.securityParameters[String(p.Id)] = p;
  data.counters.securityParameter = 3;

  seedUser(
    store,
    {
      FirstName: "System",
      LastName: "Administrator",
      UserName: FIXED.adminUserName,
      SecurityId: FIXED.parameters.administrative,
    },
    adminPassword,
    {
      roles: [FIXED.roles.systemAdministrator],
      groups: [FIXED.groups.everyone, FIXED.groups.administrators],
    },
  );
}

import type {
  CreateUserRequest,
  UpdateUserRequest,
  User,
  UserWrite,
  ValidationMessage,
} from "../../wire/index.ts";
import { HttpFailure, message, notFound } from "../failure.ts";
import { nextHistory, passwordViolations } from "../password-policy.ts";
import { FIXED } from "../seeds/fixed.ts";
import type { Store, UserRecord } from "../store.ts";
import { contactProblems, storedContacts } from "./contacts.ts";
import { membershipList, unknownMemberships } from "./memberships.ts";

/*
 * Create and update, with the seed's rules. Both build the whole user from the body: on create an
 * omitted field takes its default; on update it resets (Update rule 1). Null means omitted.
 */

export const DEFAULT_TIME_ZONE = "UTC";
export const DEFAULT_LANGUAGE_ID = 1;
/** What reads show for an unset home dashboard or workspace. */
export const UNSET_HOME = -1;

/** The parameter with `Default: true`; General User Parameter if, unexpectedly, none has it. */
export function defaultParameterId(store: Store): number {
  return store.allSecurityParameters().find((p) => p.Default)?.Id ?? FIXED.parameters.generalUser;
}

function fail(problems: ValidationMessage[]): void {
  if (problems.length > 0) throw new HttpFailure(400, problems);
}

function userNameTaken(store: Store, userName: string, selfId?: number): ValidationMessage[] {
  const holder = store.userByName(userName);
  if (!holder || holder.user.Id === selfId) return [];
  return [
    message("DuplicateUserName", `User.UserName: the user name "${userName}" is already taken.`, {
      erroredValue: userName,
    }),
  ];
}

function unknownParameter(store: Store, securityId: number): ValidationMessage[] {
  if (store.securityParameter(securityId)) return [];
  return [
    message("UnknownSecurityParameter", `User.SecurityId: security parameter ${securityId} does not exist.`, {
      erroredValue: securityId,
    }),
  ];
}

interface Names {
  FirstName: string;
  LastName: string;
  UserName: string;
}

/** The whole user from a body; every omitted or null field gets `languageId` or its default. */
function userFrom(
  store: Store,
  id: number,
  fields: UserWrite & Names,
  languageId: number | null,
  previous?: User,
): Omit<User, "UpdateInformation"> {
  return {
    Id: id,
    DisplayName: `${fields.LastName}, ${fields.FirstName}`,
    FirstName: fields.FirstName,
    MiddleName: fields.MiddleName ?? null,
    LastName: fields.LastName,
    LastLoginDate: previous?.LastLoginDate ?? null,
    UserName: fields.UserName,
    AccountStatus: fields.AccountStatus ?? 1,
    DomainId: fields.DomainId ?? null,
    SecurityId: fields.SecurityId ?? defaultParameterId(store),
    Locale: fields.Locale ?? null,
    TimeZoneId: fields.TimeZoneId ?? DEFAULT_TIME_ZONE,
    Address: fields.Address ?? null,
    Company: fields.Company ?? null,
    Title: fields.Title ?? null,
    AdditionalNote: fields.AdditionalNote ?? null,
    BusinessUnit: fields.BusinessUnit ?? null,
    Department: fields.Department ?? null,
    DistinguishedName: fields.DistinguishedName ?? null,
    ForcePasswordChange: fields.ForcePasswordChange ?? false,
    // The seed gives Type no meaning; it is kept when an update omits it.
    Type: fields.Type ?? previous?.Type ?? 1,
    LanguageId: fields.LanguageId ?? languageId,
    DefaultHomeDashboardId: fields.DefaultHomeDashboardId ?? UNSET_HOME,
    DefaultHomeWorkspaceId: fields.DefaultHomeWorkspaceId ?? UNSET_HOME,
  };
}

export function createUser(store: Store, callerId: number, request: CreateUserRequest): UserRecord {
  const fields = request.User;
  const userName = fields.UserName ?? `${fields.LastName}${fields.FirstName.charAt(0)}`.toLowerCase();
  const securityId = fields.SecurityId ?? defaultParameterId(store);
  const roles = membershipList(request.Roles ?? [FIXED.roles.generalUser]);
  const parameter = store.securityParameter(securityId);
  const problems = [
    ...(userName === "" ? [message("InvalidValue", "User.UserName: cannot be empty.")] : []),
    ...userNameTaken(store, userName),
    ...unknownParameter(store, securityId),
    ...unknownMemberships(store, "Roles", roles),
    ...(parameter ? passwordViolations(request.Password, parameter) : []).map((v) =>
      message(v.key, v.description),
    ),
  ];
  fail(problems);

  const id = store.nextId("user");
  const now = store.isoNow();
  const salt = store.newSalt();
  const record: UserRecord = {
    user: {
      ...userFrom(store, id, { ...fields, UserName: userName, SecurityId: securityId }, DEFAULT_LANGUAGE_ID),
      UpdateInformation: { CreateDate: now, UpdateDate: now, CreateLogin: callerId, UpdateLogin: callerId },
    },
    roles,
    // Every user is in Everyone, as in the seeds; other groups are set by update or usergroup.
    groups: [FIXED.groups.everyone],
    contacts: [],
    passwordHashes: [store.hashPassword(salt, request.Password)],
    salt,
    failedLogins: 0,
    lockedUntil: null,
  };
  store.data.users[String(id)] = record;
  store.changed(`users/${id}`);
  return record;
}

export function updateUser(store: Store, callerId: number, request: UpdateUserRequest): UserRecord {
  const fields = request.User;
  const record = store.user(fields.Id);
  if (!record) throw notFound("User", fields.Id);
  const securityId = fields.SecurityId ?? defaultParameterId(store);
  fail([
    ...userNameTaken(store, fields.UserName, record.user.Id),
    ...unknownParameter(store, securityId),
    ...unknownMemberships(store, "Roles", request.Roles ?? []),
    ...unknownMemberships(store, "Groups", request.Groups ?? []),
    ...contactProblems(request.Contacts ?? []),
  ]);

  const previous = record.user;
  record.user = {
    ...userFrom(store, previous.Id, { ...fields, SecurityId: securityId }, null, previous),
    UpdateInformation: {
      CreateDate: previous.UpdateInformation?.CreateDate ?? null,
      CreateLogin: previous.UpdateInformation?.CreateLogin ?? null,
      UpdateDate: store.isoNow(),
      UpdateLogin: callerId,
    },
  };
  // Update rule 3: null or absent leaves the list alone; a list replaces it.
  if (request.Contacts) record.contacts = storedContacts(store, request.Contacts, record.contacts);
  if (request.Roles) record.roles = membershipList(request.Roles);
  if (request.Groups) record.groups = membershipList(request.Groups);
  applyStatus(store, record, previous.AccountStatus);
  store.changed(`users/${record.user.Id}`);
  return record;
}

/**
 * Side effects of an AccountStatus change: sessions end unless the user is active; a lockout
 * already running keeps its end time, a lock set by an update lasts until changed; leaving Locked
 * clears the failed-login count.
 */
export function applyStatus(store: Store, record: UserRecord, before: number): void {
  const status = record.user.AccountStatus;
  if (status !== 1) store.endSessionsOf(record.user.Id);
  if (status !== 3 || before !== 3) record.lockedUntil = null;
  if (status !== 3 && before === 3) record.failedLogins = 0;
}

/** Sets a new password after checking it against the user's parameter and history. */
export function changePassword(store: Store, record: UserRecord, password: string): void {
  const parameter = store.parameterFor(record);
  const policy = parameter ?? {
    Name: "none",
    MinPasswordLength: 1,
    AlphaCharsRequired: 0,
    NumericCharsRequired: 0,
    UppercaseCharsRequired: 0,
    LowercaseCharsRequired: 0,
    SpecialCharsRequired: 0,
    PreviousPasswordsDisallowed: 0,
  };
  const hash = (pw: string) => store.hashPassword(record.salt, pw);
  fail(
    passwordViolations(password, policy, { hashes: record.passwordHashes, hash }).map((v) =>
      message(v.key, v.description),
    ),
  );
  record.passwordHashes = nextHistory(record.passwordHashes, hash(password), policy);
  store.changed(`users/${record.user.Id}`);
}

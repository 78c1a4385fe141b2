import { z } from "zod";

const int = z.number().int();
const text = z.string().nullable();

/** AccountStatus codes. */
export const AccountStatus = { Active: 1, Inactive: 2, Locked: 3 } as const;
export type AccountStatus = (typeof AccountStatus)[keyof typeof AccountStatus];

export const UpdateInformation = z.object({
  CreateDate: z.string().nullable(),
  UpdateDate: z.string().nullable(),
  CreateLogin: int.nullable(),
  UpdateLogin: int.nullable(),
});
export type UpdateInformation = z.infer<typeof UpdateInformation>;

export const User = z.object({
  Id: int,
  DisplayName: z.string().nullable(),
  FirstName: z.string(),
  MiddleName: text,
  LastName: z.string(),
  LastLoginDate: text,
  UserName: z.string(),
  AccountStatus: int,
  DomainId: int.nullable(),
  SecurityId: int,
  Locale: text,
  TimeZoneId: text,
  Address: text,
  Company: text,
  Title: text,
  AdditionalNote: text,
  BusinessUnit: text,
  Department: text,
  DistinguishedName: text,
  ForcePasswordChange: z.boolean(),
  Type: int,
  LanguageId: int.nullable(),
  DefaultHomeDashboardId: int,
  DefaultHomeWorkspaceId: int,
  UpdateInformation: UpdateInformation.nullable(),
});
export type User = z.infer<typeof User>;

const optionalText = z.string().nullable().optional();
const optionalInt = int.nullable().optional();

const missing = (expected: string) => (issue: { input?: unknown }) =>
  issue.input == null ? "is required and cannot be null" : `must be ${expected}`;

/** A field that must be present, not null and not empty (seed: create and update rules). */
const requiredText = z.string({ error: missing("a string") }).min(1, "cannot be empty");
const requiredInt = z.number({ error: missing("an integer") }).int("must be an integer");

/** AccountStatus on writes: 1 Active, 2 Inactive, 3 Locked. */
const STATUS_RANGE = "must be 1 (Active), 2 (Inactive) or 3 (Locked)";
const accountStatus = requiredInt.min(1, STATUS_RANGE).max(3, STATUS_RANGE);

/**
 * The writable user fields, as a create or update body carries them. Every field may be omitted or
 * null; what that means (default, reset) is the service's rule, not the schema's.
 */
export const UserWrite = z.object({
  Id: optionalInt,
  DisplayName: optionalText,
  FirstName: optionalText,
  MiddleName: optionalText,
  LastName: optionalText,
  UserName: optionalText,
  AccountStatus: accountStatus.nullable().optional(),
  DomainId: optionalInt,
  SecurityId: optionalInt,
  Locale: optionalText,
  TimeZoneId: optionalText,
  Address: optionalText,
  Company: optionalText,
  Title: optionalText,
  AdditionalNote: optionalText,
  BusinessUnit: optionalText,
  Department: optionalText,
  DistinguishedName: optionalText,
  ForcePasswordChange: z.boolean().nullable().optional(),
  Type: optionalInt,
  LanguageId: optionalInt,
  DefaultHomeDashboardId: optionalInt,
  DefaultHomeWorkspaceId: optionalInt,
});
export type UserWrite = z.infer<typeof UserWrite>;

/** Create rules: FirstName and LastName required. */
export const CreateUserFields = UserWrite.extend({ FirstName: requiredText, LastName: requiredText });
export type CreateUserFields = z.infer<typeof CreateUserFields>;

/** Update rule 2: Id, FirstName, LastName, UserName and AccountStatus cannot be null. */
export const UpdateUserFields = UserWrite.extend({
  Id: requiredInt,
  FirstName: requiredText,
  LastName: requiredText,
  UserName: requiredText,
  AccountStatus: accountStatus,
});
export type UpdateUserFields = z.infer<typeof UpdateUserFields>;

export const ContactType = { Email: 7, Phone: 9 } as const;
export const ContactSubType = {
  Assistant: 1,
  Business: 2,
  Business2: 3,
  BusinessFax: 4,
  Home: 5,
  Home2: 6,
  HomeFax: 7,
  ISDN: 8,
  Mobile: 9,
  Mobile2: 10,
  Other: 11,
  Other2: 12,
  OtherFax: 13,
  Pager: 14,
} as const;

export const Contact = z.object({
  Id: int.nullable().optional(),
  ContactType: int,
  ContactSubType: int,
  IsDefault: z.boolean(),
  Value: z.string(),
});
export type Contact = z.infer<typeof Contact>;

/** A contact in an update body: `Id` keeps an existing contact's id; `IsDefault` defaults to false. */
export const ContactWrite = z.object({
  Id: optionalInt,
  ContactType: int,
  ContactSubType: int,
  IsDefault: z.boolean().nullable().optional(),
  Value: requiredText,
});
export type ContactWrite = z.infer<typeof ContactWrite>;

/** Seed rule: phone (9) allows subtypes 3–14; email (7) forbids 1, 4, 7, 8 and 13. */
export function contactSubTypeAllowed(type: number, subType: number): boolean {
  if (!Number.isInteger(subType) || subType < 1 || subType > 14) return false;
  if (type === ContactType.Phone) return subType >= 3;
  if (type === ContactType.Email) return ![1, 4, 7, 8, 13].includes(subType);
  return false;
}

export const ContactsByUser = z.object({ UserId: int, Contacts: z.array(Contact) });
export type ContactsByUser = z.infer<typeof ContactsByUser>;

export const Task = z.object({
  TaskId: int,
  Title: z.string().nullable(),
  Description: z.string().nullable(),
  DueDate: z.string().nullable(),
  IsComplete: z.boolean(),
  TargetContentId: int.nullable(),
});
export type Task = z.infer<typeof Task>;

export const CreateUserRequest = z.object({
  User: CreateUserFields,
  Password: z.string({ error: "is required" }),
  Roles: z.array(int).nullable().optional(),
});
export type CreateUserRequest = z.infer<typeof CreateUserRequest>;

export const UpdateUserRequest = z.object({
  User: UpdateUserFields,
  Contacts: z.array(ContactWrite).nullable().optional(),
  Roles: z.array(int).nullable().optional(),
  Groups: z.array(int).nullable().optional(),
});
export type UpdateUserRequest = z.infer<typeof UpdateUserRequest>;

export const UserRoleRequest = z.object({ UserId: int, RoleId: int, IsAdd: z.boolean() });
export type UserRoleRequest = z.infer<typeof UserRoleRequest>;

export const UserGroupRequest = z.object({ UserId: int, GroupId: int, IsAdd: z.boolean() });
export type UserGroupRequest = z.infer<typeof UserGroupRequest>;

export const ChangePasswordRequest = z.object({ UserId: int, NewPassword: z.string() });
export type ChangePasswordRequest = z.infer<typeof ChangePasswordRequest>;

/** Tasks read body: `Value` holds an OData query string. */
export const TaskQueryRequest = z.object({ Value: z.string().nullable().optional() });
export type TaskQueryRequest = z.infer<typeof TaskQueryRequest>;

import type { Task, User } from "../../wire/index.ts";
import type { FieldKind } from "../odata.ts";

/** The fields of a user that OData queries may name, with their kinds (typed to stay complete). */
export const USER_FIELDS: Readonly<Record<keyof User, FieldKind>> = {
  Id: "number",
  DisplayName: "string",
  FirstName: "string",
  MiddleName: "string",
  LastName: "string",
  LastLoginDate: "datetime",
  UserName: "string",
  AccountStatus: "number",
  DomainId: "number",
  SecurityId: "number",
  Locale: "string",
  TimeZoneId: "string",
  Address: "string",
  Company: "string",
  Title: "string",
  AdditionalNote: "string",
  BusinessUnit: "string",
  Department: "string",
  DistinguishedName: "string",
  ForcePasswordChange: "boolean",
  Type: "number",
  LanguageId: "number",
  DefaultHomeDashboardId: "number",
  DefaultHomeWorkspaceId: "number",
  UpdateInformation: "object",
};

export const TASK_FIELDS: Readonly<Record<keyof Task, FieldKind>> = {
  TaskId: "number",
  Title: "string",
  Description: "string",
  DueDate: "datetime",
  IsComplete: "boolean",
  TargetContentId: "number",
};

export const userField = (user: User, field: string): unknown => user[field as keyof User];
export const taskField = (task: Task, field: string): unknown => task[field as keyof Task];

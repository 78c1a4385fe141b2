import { z } from "zod";

const int = z.number().int();

/** LockoutPeriodType and SessionTimeoutType codes. */
export const PeriodType = { Hours: 1, Minutes: 2, Days: 3 } as const;

/** DisallowedSessionDays values: one bit per day. */
export const Day = {
  Sunday: 1,
  Monday: 2,
  Tuesday: 4,
  Wednesday: 8,
  Thursday: 16,
  Friday: 32,
  Saturday: 64,
} as const;
export const DAY_VALUES: readonly number[] = Object.values(Day);

export const DisallowedDate = z.object({ LockedDate: z.string() });

const fields = {
  Name: z.string(),
  Description: z.string().nullable(),
  MinPasswordLength: int,
  AlphaCharsRequired: int,
  NumericCharsRequired: int,
  UppercaseCharsRequired: int,
  LowercaseCharsRequired: int,
  SpecialCharsRequired: int,
  PasswordChangeInterval: int,
  PasswordChangeLimit: z.boolean(),
  GraceLogins: int,
  MaximumFailedLoginAttempts: int,
  PreviousPasswordsDisallowed: int,
  LockoutPeriod: int,
  LockoutPeriodType: int,
  SessionTimeout: int,
  SessionTimeoutType: int,
  StaticSessionTimeout: int.nullable(),
  PasswordExpirationNotice: int,
  AutomaticAccountDeactivation: int,
  IsLimitByTimeFrame: z.boolean(),
  PermittedFromTime: z.string().nullable(),
  PermittedToTime: z.string().nullable(),
  IsDisallowedByDays: z.boolean(),
  DisallowedSessionDays: z.array(int).nullable(),
  IsDisallowedByDates: z.boolean(),
  DisallowedDates: z.array(DisallowedDate).nullable(),
  Default: z.boolean(),
  TimeZoneCode: z.string().nullable(),
  SecurityParameterType: int,
};

/** A security parameter as reads return it. */
export const SecurityParameter = z.object({
  Id: int,
  Alias: z.string().nullable(),
  GUID: z.string().nullable(),
  ...fields,
});
export type SecurityParameter = z.infer<typeof SecurityParameter>;

/**
 * Accepts both spellings of the time-zone key: the seed's update example writes `TimeZonCode`.
 * Keys match case-insensitively, as everywhere in a request body; `TimeZoneCode` wins when both are
 * sent. Input only; reads always return `TimeZoneCode`.
 */
function foldTimeZoneSpelling(input: unknown): unknown {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return input;
  const record = input as Record<string, unknown>;
  const keys = Object.keys(record);
  const misspelt = keys.find((key) => key.toLowerCase() === "timezoncode");
  if (misspelt === undefined) return input;
  const { [misspelt]: value, ...rest } = record;
  if (keys.some((key) => key.toLowerCase() === "timezonecode")) return rest;
  return { ...rest, TimeZoneCode: value };
}

const required = (expected: string) => (issue: { input?: unknown }) =>
  issue.input == null ? "is required" : `must be ${expected}`;
const requiredText = z.string({ error: required("a string") }).min(1, "cannot be empty");
const requiredInt = z.number({ error: required("an integer") }).int("must be an integer");

/** Create body: no Id, Alias or GUID. */
export const SecurityParameterCreate = z.preprocess(
  foldTimeZoneSpelling,
  z.object(fields).partial().extend({ Name: requiredText }),
);
export type SecurityParameterCreate = z.infer<typeof SecurityParameterCreate>;

/** Update body: the live Id, Alias and GUID are required. */
export const SecurityParameterUpdate = z.preprocess(
  foldTimeZoneSpelling,
  z.object(fields).partial().extend({ Id: requiredInt, Alias: requiredText, GUID: requiredText }),
);
export type SecurityParameterUpdate = z.infer<typeof SecurityParameterUpdate>;

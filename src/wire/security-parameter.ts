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
 * Input only; reads always return `TimeZoneCode`.
 */
function foldTimeZoneSpelling(input: unknown): unknown {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return input;
  const record = input as Record<string, unknown>;
  if (!("TimeZonCode" in record) || "TimeZoneCode" in record) return input;
  const { TimeZonCode, ...rest } = record;
  return { ...rest, TimeZoneCode: TimeZonCode };
}

/** Create body: no Id, Alias or GUID. */
export const SecurityParameterCreate = z.preprocess(
  foldTimeZoneSpelling,
  z.object(fields).partial().extend({ Name: z.string() }),
);
export type SecurityParameterCreate = z.infer<typeof SecurityParameterCreate>;

/** Update body: the live Id, Alias and GUID are required. */
export const SecurityParameterUpdate = z.preprocess(
  foldTimeZoneSpelling,
  z.object(fields).partial().extend({ Id: int, Alias: z.string(), GUID: z.string() }),
);
export type SecurityParameterUpdate = z.infer<typeof SecurityParameterUpdate>;

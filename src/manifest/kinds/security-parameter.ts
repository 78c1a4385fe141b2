import { z } from "zod";
import type { SourceLocation } from "../errors.ts";
import {
  type DocumentRule,
  defineKind,
  ENSURE_PRESENT,
  type EnvironmentRule,
  type FieldWords,
  isAbsent,
  type KindDocument,
  nameOfCode,
  namesOf,
  optionalText,
  type PlacedDocument,
  reportRepeats,
  scoping,
  sourceOf,
  whereIs,
} from "./kind.ts";

/** LockoutPeriodType and SessionTimeoutType codes (seed: 1 Hours, 2 Minutes, 3 Days). */
export const PERIOD_UNIT_CODES = { hours: 1, minutes: 2, days: 3 } as const;
export type PeriodUnit = keyof typeof PERIOD_UNIT_CODES;

/** DisallowedSessionDays values (seed): one bit per day. */
export const DAY_CODES = {
  sunday: 1,
  monday: 2,
  tuesday: 4,
  wednesday: 8,
  thursday: 16,
  friday: 32,
  saturday: 64,
} as const;
export type DayName = keyof typeof DAY_CODES;

const count = (description: string) => z.number().int().min(0).optional().describe(description);

const Period = z
  .strictObject({
    value: z.number().int().min(0),
    unit: z.enum(Object.keys(PERIOD_UNIT_CODES) as [PeriodUnit, ...PeriodUnit[]]),
  })
  .describe("A duration: { value, unit: hours | minutes | days }.");

const TimeOfDay = z
  .string()
  .regex(/^([01]?\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/, "expected a time of day, HH:MM (24-hour)");

const Day = z.enum(Object.keys(DAY_CODES) as [DayName, ...DayName[]]);

export const SecurityParameterDocument = z
  .strictObject({
    kind: z.literal("SecurityParameter"),
    ...scoping,
    name: z.string().min(1).describe("Key: the parameter's Name, the same in every environment."),
    ensure: ENSURE_PRESENT,
    description: optionalText("Description."),
    minPasswordLength: count("Minimum password length."),
    alphaCharsRequired: count("Letters a password needs."),
    numericCharsRequired: count("Digits a password needs."),
    uppercaseCharsRequired: count("Upper-case letters a password needs."),
    lowercaseCharsRequired: count("Lower-case letters a password needs."),
    specialCharsRequired: count("Special characters a password needs."),
    passwordChangeInterval: count("Days after which a password must change."),
    passwordChangeLimit: z.boolean().optional().describe("PasswordChangeLimit."),
    graceLogins: count("Logins allowed after the password expired."),
    previousPasswordsDisallowed: count("How many previous passwords may not be reused."),
    passwordExpirationNotice: count("Days of notice before a password expires."),
    maximumFailedLoginAttempts: count("Failed logins that lock the account (0: never)."),
    lockoutPeriod: Period.optional().describe("How long a locked account stays locked."),
    sessionTimeout: Period.optional().describe("Idle time after which a session ends."),
    staticSessionTimeout: z
      .number()
      .int()
      .min(1)
      .nullable()
      .optional()
      .describe("Absolute session lifetime, in the unit of sessionTimeout; null: none."),
    automaticAccountDeactivation: count("AutomaticAccountDeactivation."),
    limitByTimeFrame: z
      .boolean()
      .optional()
      .describe("Allow logins only between permittedFrom and permittedTo."),
    permittedFrom: TimeOfDay.nullable().optional().describe("Start of the permitted time frame, HH:MM."),
    permittedTo: TimeOfDay.nullable().optional().describe("End of the permitted time frame, HH:MM."),
    disallowedDays: z.array(Day).optional().describe("Days on which sessions are refused; [] for none."),
    disallowedDates: z
      .array(z.iso.date())
      .optional()
      .describe("Dates (YYYY-MM-DD) on which sessions are refused; [] for none."),
    default: z.boolean().optional().describe("Whether this is the default parameter."),
    timeZoneCode: z.string().min(1).optional().describe("TimeZoneCode."),
    type: z
      .number()
      .int()
      .optional()
      .describe(
        "SecurityParameterType, as the platform numbers it (the interface does not name the values).",
      ),
  })
  .describe("A security parameter: password, lockout and session policy. Only the fields given are managed.");
export type SecurityParameterDocument = z.infer<typeof SecurityParameterDocument>;

/**
 * The managed fields of a security parameter, named and coded as the platform's interface does, so
 * that a planner compares them field by field with the live record. Only fields the manifest sets
 * are present. Two values have no fixed wire format in the seed, so the planner compares them by
 * their meaning: `PermittedFromTime`/`PermittedToTime` are a time of day `HH:MM:SS` (compare the
 * time part of the live date-time), and `LockedDate` is `YYYY-MM-DDT00:00:00` (compare the date).
 */
export interface SecurityParameterFields {
  Description?: string | null;
  MinPasswordLength?: number;
  AlphaCharsRequired?: number;
  NumericCharsRequired?: number;
  UppercaseCharsRequired?: number;
  LowercaseCharsRequired?: number;
  SpecialCharsRequired?: number;
  PasswordChangeInterval?: number;
  PasswordChangeLimit?: boolean;
  GraceLogins?: number;
  PreviousPasswordsDisallowed?: number;
  PasswordExpirationNotice?: number;
  MaximumFailedLoginAttempts?: number;
  LockoutPeriod?: number;
  LockoutPeriodType?: number;
  SessionTimeout?: number;
  SessionTimeoutType?: number;
  StaticSessionTimeout?: number | null;
  AutomaticAccountDeactivation?: number;
  IsLimitByTimeFrame?: boolean;
  PermittedFromTime?: string | null;
  PermittedToTime?: string | null;
  IsDisallowedByDays?: boolean;
  /** Sorted ascending. */
  DisallowedSessionDays?: number[];
  IsDisallowedByDates?: boolean;
  /** Sorted by date. */
  DisallowedDates?: { LockedDate: string }[];
  Default?: boolean;
  TimeZoneCode?: string;
  SecurityParameterType?: number;
}

export interface DesiredSecurityParameter {
  kind: "SecurityParameter";
  /** Key: matched with the live parameter's `Name`. */
  name: string;
  fields: SecurityParameterFields;
  source: SourceLocation;
}

/** Fields that map one to one, manifest name → interface name. */
const DIRECT = {
  description: "Description",
  minPasswordLength: "MinPasswordLength",
  alphaCharsRequired: "AlphaCharsRequired",
  numericCharsRequired: "NumericCharsRequired",
  uppercaseCharsRequired: "UppercaseCharsRequired",
  lowercaseCharsRequired: "LowercaseCharsRequired",
  specialCharsRequired: "SpecialCharsRequired",
  passwordChangeInterval: "PasswordChangeInterval",
  passwordChangeLimit: "PasswordChangeLimit",
  graceLogins: "GraceLogins",
  previousPasswordsDisallowed: "PreviousPasswordsDisallowed",
  passwordExpirationNotice: "PasswordExpirationNotice",
  maximumFailedLoginAttempts: "MaximumFailedLoginAttempts",
  staticSessionTimeout: "StaticSessionTimeout",
  automaticAccountDeactivation: "AutomaticAccountDeactivation",
  limitByTimeFrame: "IsLimitByTimeFrame",
  default: "Default",
  timeZoneCode: "TimeZoneCode",
  type: "SecurityParameterType",
} as const satisfies Partial<Record<keyof SecurityParameterDocument, keyof SecurityParameterFields>>;

function timeOfDay(text: string | null): string | null {
  if (text === null) return null;
  const [hours = "0", minutes = "00", seconds = "00"] = text.split(":");
  return `${hours.padStart(2, "0")}:${minutes}:${seconds}`;
}

const timeFrameIsComplete: DocumentRule<SecurityParameterDocument> = (doc, report) => {
  if (doc.limitByTimeFrame !== true) return;
  if (!doc.permittedFrom) report.error(["limitByTimeFrame"], "needs permittedFrom (HH:MM)");
  if (!doc.permittedTo) report.error(["limitByTimeFrame"], "needs permittedTo (HH:MM)");
};

const daysAndDatesAreListedOnce: DocumentRule<SecurityParameterDocument> = (doc, report) => {
  reportRepeats(doc.disallowedDays, report, "disallowedDays");
  reportRepeats(doc.disallowedDates, report, "disallowedDates");
};

const requiredCharactersFit: DocumentRule<SecurityParameterDocument> = (doc, report) => {
  if (doc.minPasswordLength === undefined) return;
  const required =
    (doc.numericCharsRequired ?? 0) +
    (doc.specialCharsRequired ?? 0) +
    Math.max(
      doc.alphaCharsRequired ?? 0,
      (doc.uppercaseCharsRequired ?? 0) + (doc.lowercaseCharsRequired ?? 0),
    );
  if (required <= doc.minPasswordLength) return;
  report.warning(
    ["minPasswordLength"],
    `the required characters add up to ${required}, more than minPasswordLength (${doc.minPasswordLength})`,
  );
};

function normalize(doc: SecurityParameterDocument): SecurityParameterFields {
  const fields: Record<string, unknown> = {};
  for (const [from, to] of Object.entries(DIRECT)) {
    const value = doc[from as keyof typeof DIRECT];
    if (value !== undefined) fields[to] = value;
  }
  if (doc.lockoutPeriod) {
    fields.LockoutPeriod = doc.lockoutPeriod.value;
    fields.LockoutPeriodType = PERIOD_UNIT_CODES[doc.lockoutPeriod.unit];
  }
  if (doc.sessionTimeout) {
    fields.SessionTimeout = doc.sessionTimeout.value;
    fields.SessionTimeoutType = PERIOD_UNIT_CODES[doc.sessionTimeout.unit];
  }
  if (doc.permittedFrom !== undefined) fields.PermittedFromTime = timeOfDay(doc.permittedFrom);
  if (doc.permittedTo !== undefined) fields.PermittedToTime = timeOfDay(doc.permittedTo);
  if (doc.disallowedDays) {
    fields.IsDisallowedByDays = doc.disallowedDays.length > 0;
    fields.DisallowedSessionDays = doc.disallowedDays.map((day) => DAY_CODES[day]).sort((a, b) => a - b);
  }
  if (doc.disallowedDates) {
    fields.IsDisallowedByDates = doc.disallowedDates.length > 0;
    fields.DisallowedDates = [...doc.disallowedDates]
      .sort()
      .map((date) => ({ LockedDate: `${date}T00:00:00` }));
  }
  return fields as SecurityParameterFields;
}

/** `07:00:00` or a live date-time `2026-01-01T07:00:00` → `07:00`, as a manifest writes it. */
function hoursAndMinutes(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const time = /(\d{1,2}):(\d{2})(?::\d{2})?$/.exec(value.split("T").pop() ?? value);
  return time ? `${time[1]?.padStart(2, "0")}:${time[2]}` : value;
}

const unit = (code: unknown) => nameOfCode(PERIOD_UNIT_CODES, code);

/** Plans' words for the fields `normalize` writes (kind.ts, `FieldWords`). */
const WORDS: FieldWords = {
  ...namesOf(DIRECT),
  LockoutPeriod: { name: "lockoutPeriod.value" },
  LockoutPeriodType: { name: "lockoutPeriod.unit", value: unit },
  SessionTimeout: { name: "sessionTimeout.value" },
  SessionTimeoutType: { name: "sessionTimeout.unit", value: unit },
  PermittedFromTime: { name: "permittedFrom", value: hoursAndMinutes },
  PermittedToTime: { name: "permittedTo", value: hoursAndMinutes },
  // Derived from the lists: said by the list's own line when both change.
  IsDisallowedByDays: { name: "disallowedDays (any)", shownBy: "DisallowedSessionDays" },
  IsDisallowedByDates: { name: "disallowedDates (any)", shownBy: "DisallowedDates" },
  DisallowedSessionDays: {
    name: "disallowedDays",
    value: (codes) => (Array.isArray(codes) ? codes.map((code) => nameOfCode(DAY_CODES, code)) : codes),
  },
  DisallowedDates: {
    name: "disallowedDates",
    value: (dates) =>
      Array.isArray(dates)
        ? dates.map((date: { LockedDate?: unknown }) => String(date?.LockedDate ?? date).slice(0, 10))
        : dates,
  },
};

/**
 * Security parameters every instance has (DESIGN §4.3 fixed facts), so a user may name them
 * without a manifest for them.
 */
export const PLATFORM_SECURITY_PARAMETERS = [
  "Default Administrative User",
  "General User Parameter",
  "Services Parameter",
] as const;

/** A present security parameter's document, among the documents of every kind. */
function isParameter(desired: KindDocument): desired is DesiredSecurityParameter {
  return desired.kind === "SecurityParameter" && !isAbsent(desired);
}

const oneDefaultSecurityParameter: EnvironmentRule = ({ environment, documents }) => {
  let first: PlacedDocument | undefined;
  for (const placed of documents) {
    const { desired } = placed;
    if (!isParameter(desired) || desired.fields.Default !== true) continue;
    if (!first) first = placed;
    else
      placed.report.error(
        ["default"],
        `a second default security parameter for environment ${environment.name} (the first is at ${whereIs(first.report, "default")})`,
      );
  }
};

export const securityParameterKind = defineKind({
  kind: "SecurityParameter",
  plural: "securityParameters",
  schema: SecurityParameterDocument,
  rules: [timeFrameIsComplete, daysAndDatesAreListedOnce, requiredCharactersFit],
  // Names compare case-insensitively: two names that differ only in case would confuse any instance.
  key: { field: "name", of: (desired: DesiredSecurityParameter) => desired.name.toLowerCase() },
  words: WORDS,
  absentable: true,
  builtIn: PLATFORM_SECURITY_PARAMETERS,
  environmentRules: [oneDefaultSecurityParameter],
  prune: {
    values: ["ignore", "delete"],
    description: "Live security parameters the manifests do not name: ignore (default) or delete.",
  },
  normalize(doc, _environment, report): DesiredSecurityParameter {
    return {
      kind: "SecurityParameter",
      name: doc.name,
      fields: normalize(doc),
      source: sourceOf(report, "name"),
    };
  },
});

import { DAY_VALUES, type SecurityParameter, type ValidationMessage } from "../../wire/index.ts";
import { message } from "../failure.ts";

/*
 * Range checks of a whole security parameter, run on the result of a create or an update, so that
 * a partial update cannot leave an inconsistent parameter behind.
 */

const COUNTS = [
  "MinPasswordLength",
  "AlphaCharsRequired",
  "NumericCharsRequired",
  "UppercaseCharsRequired",
  "LowercaseCharsRequired",
  "SpecialCharsRequired",
  "PasswordChangeInterval",
  "GraceLogins",
  "MaximumFailedLoginAttempts",
  "PreviousPasswordsDisallowed",
  "LockoutPeriod",
  "SessionTimeout",
  "StaticSessionTimeout",
  "PasswordExpirationNotice",
  "AutomaticAccountDeactivation",
] as const satisfies ReadonlyArray<keyof SecurityParameter>;

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(:(\d{2})(\.\d{1,7})?)?(Z|[+-]\d{2}:\d{2})?$/;

/** An ISO 8601 date-time with a real date and time (an offset is optional, as .NET writes them). */
export function isDateTime(text: string): boolean {
  const match = DATE_TIME.exec(text);
  if (!match) return false;
  const [, year, month, day, hour, minute, , second = "0"] = match.map((part) => part ?? "0");
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  return (
    date.getUTCMonth() === Number(month) - 1 &&
    date.getUTCDate() === Number(day) &&
    Number(hour) < 24 &&
    Number(minute) < 60 &&
    Number(second) < 60
  );
}

const problem = (field: string, text: string, value?: unknown) =>
  message("InvalidValue", `${field}: ${text}`, { erroredValue: value });

function countProblems(p: SecurityParameter): ValidationMessage[] {
  return COUNTS.filter((field) => (p[field] ?? 0) < 0).map((field) =>
    problem(field, "cannot be negative.", p[field]),
  );
}

function periodTypeProblems(p: SecurityParameter): ValidationMessage[] {
  return (["LockoutPeriodType", "SessionTimeoutType"] as const)
    .filter((field) => p[field] < 1 || p[field] > 3)
    .map((field) => problem(field, "must be 1 (Hours), 2 (Minutes) or 3 (Days).", p[field]));
}

function dayProblems(p: SecurityParameter): ValidationMessage[] {
  const days = p.DisallowedSessionDays ?? [];
  const problems = days
    .filter((day) => !DAY_VALUES.includes(day))
    .map((day) =>
      problem("DisallowedSessionDays", `${day} is not a day (use 1, 2, 4, 8, 16, 32 or 64).`, day),
    );
  if (new Set(days).size !== days.length)
    problems.push(problem("DisallowedSessionDays", "lists a day twice."));
  return problems;
}

function dateProblems(p: SecurityParameter): ValidationMessage[] {
  const problems: ValidationMessage[] = [];
  for (const field of ["PermittedFromTime", "PermittedToTime"] as const) {
    const value = p[field];
    if (value != null && !isDateTime(value))
      problems.push(problem(field, "must be an ISO 8601 date-time.", value));
    if (value == null && p.IsLimitByTimeFrame)
      problems.push(problem(field, "is required when IsLimitByTimeFrame is true."));
  }
  (p.DisallowedDates ?? []).forEach((date, i) => {
    if (!isDateTime(date.LockedDate)) {
      problems.push(
        problem(`DisallowedDates[${i}].LockedDate`, "must be an ISO 8601 date-time.", date.LockedDate),
      );
    }
  });
  return problems;
}

/** The required characters must fit: letters (at least upper + lower), digits and specials. */
function lengthProblems(p: SecurityParameter): ValidationMessage[] {
  const letters = Math.max(p.AlphaCharsRequired, p.UppercaseCharsRequired + p.LowercaseCharsRequired);
  const needed = letters + p.NumericCharsRequired + p.SpecialCharsRequired;
  if (p.MinPasswordLength >= needed) return [];
  return [
    problem(
      "MinPasswordLength",
      `must be at least ${needed}, the number of characters the other password rules require.`,
      p.MinPasswordLength,
    ),
  ];
}

/** Every range problem of the parameter; empty when it is valid. */
export function parameterProblems(p: SecurityParameter): ValidationMessage[] {
  return [
    ...(p.Name.trim() === "" ? [problem("Name", "cannot be empty.")] : []),
    ...countProblems(p),
    ...periodTypeProblems(p),
    ...dayProblems(p),
    ...dateProblems(p),
    ...lengthProblems(p),
  ];
}

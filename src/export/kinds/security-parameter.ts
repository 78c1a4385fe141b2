import { DAY_CODES, PERIOD_UNIT_CODES, securityParameterKind } from "../../manifest/index.ts";
import type { SecurityParameter } from "../../wire/index.ts";
import { conformEach } from "../conform.ts";
import {
  DocumentWriter,
  type ExportContext,
  type ExportedDocument,
  type KindExport,
  type KindExporter,
  namesByCode,
  text,
} from "../kind.ts";

type DayName = keyof typeof DAY_CODES;
type PeriodUnit = keyof typeof PERIOD_UNIT_CODES;

const UNITS = namesByCode<PeriodUnit>(PERIOD_UNIT_CODES);
const DAYS = namesByCode<DayName>(DAY_CODES);

/** Fields that map one to one, manifest name → interface name, in the order the schema lists them. */
const LEADING = [
  ["minPasswordLength", "MinPasswordLength"],
  ["alphaCharsRequired", "AlphaCharsRequired"],
  ["numericCharsRequired", "NumericCharsRequired"],
  ["uppercaseCharsRequired", "UppercaseCharsRequired"],
  ["lowercaseCharsRequired", "LowercaseCharsRequired"],
  ["specialCharsRequired", "SpecialCharsRequired"],
  ["passwordChangeInterval", "PasswordChangeInterval"],
  ["passwordChangeLimit", "PasswordChangeLimit"],
  ["graceLogins", "GraceLogins"],
  ["previousPasswordsDisallowed", "PreviousPasswordsDisallowed"],
  ["passwordExpirationNotice", "PasswordExpirationNotice"],
  ["maximumFailedLoginAttempts", "MaximumFailedLoginAttempts"],
] as const satisfies ReadonlyArray<readonly [string, keyof SecurityParameter]>;

/** The time of day of a live date-time (the platform stores one), as HH:MM, or HH:MM:SS when it has seconds. */
export function timeOfDay(value: string | null): string | undefined {
  if (value === null) return undefined;
  const match = /(?:^|T)(\d{1,2}):(\d{2})(?::(\d{2}))?/.exec(value);
  if (!match) return value;
  const [, hours = "0", minutes = "00", seconds = "00"] = match;
  const hhmm = `${hours.padStart(2, "0")}:${minutes}`;
  return seconds === "00" ? hhmm : `${hhmm}:${seconds}`;
}

function periods(p: SecurityParameter, w: DocumentWriter): void {
  for (const [key, value, type] of [
    ["lockoutPeriod", p.LockoutPeriod, p.LockoutPeriodType],
    ["sessionTimeout", p.SessionTimeout, p.SessionTimeoutType],
  ] as const) {
    const unit = UNITS.get(type);
    if (unit === undefined) w.skip(key, `unit code ${type} is not hours, minutes or days`);
    else w.put(key, { value, unit });
  }
}

function timeFrame(p: SecurityParameter, w: DocumentWriter): void {
  const [from, to] = [timeOfDay(p.PermittedFromTime), timeOfDay(p.PermittedToTime)];
  // A manifest that limits logins to a time frame must give it.
  if (p.IsLimitByTimeFrame && (!from || !to)) w.skip("limitByTimeFrame", "the time frame is incomplete");
  else w.put("limitByTimeFrame", p.IsLimitByTimeFrame);
  w.put("permittedFrom", from);
  w.put("permittedTo", to);
}

/**
 * A manifest writes days and dates as one list whose emptiness sets the flag, so a live flag that
 * disagrees with its list, or a list with repeats, can't be written.
 */
function days(p: SecurityParameter, w: DocumentWriter): void {
  // A null list with the flag off is simply nothing to manage.
  if (p.DisallowedSessionDays === null && !p.IsDisallowedByDays) return;
  const codes = [...(p.DisallowedSessionDays ?? [])].sort((a, b) => a - b);
  const names = codes.map((code) => DAYS.get(code));
  if (p.IsDisallowedByDays !== codes.length > 0) w.skip("disallowedDays", "the flag and the days disagree");
  else if (names.some((name) => name === undefined) || new Set(codes).size !== codes.length)
    w.skip("disallowedDays", "not a list of distinct days");
  else w.put("disallowedDays", names);
}

// A manifest gives dates; the planner compares them as midnight UTC.
const MIDNIGHT = /^\d{4}-\d{2}-\d{2}(T00:00(:00(\.0+)?)?(Z|[+-]00:?00)?)?$/;

function dates(p: SecurityParameter, w: DocumentWriter): void {
  if (p.DisallowedDates === null && !p.IsDisallowedByDates) return;
  if (p.DisallowedDates?.some((date) => !MIDNIGHT.test(date.LockedDate))) {
    w.skip("disallowedDates", "a date has a time of day");
    return;
  }
  const list = (p.DisallowedDates ?? []).map((date) => date.LockedDate.slice(0, 10)).sort();
  if (p.IsDisallowedByDates !== list.length > 0) w.skip("disallowedDates", "the flag and the dates disagree");
  else if (new Set(list).size !== list.length) w.skip("disallowedDates", "a date is listed twice");
  else w.put("disallowedDates", list);
}

/** One live parameter as a manifest document, with every field the instance reports. */
export function securityParameterDocument(
  p: SecurityParameter,
  environment: string,
): { doc: ExportedDocument; warnings: string[] } {
  const w = new DocumentWriter(
    { kind: "SecurityParameter", environments: [environment], name: p.Name },
    `SecurityParameter "${p.Name}"`,
  );
  w.put("description", text(p.Description));
  for (const [key, field] of LEADING) w.put(key, p[field]);
  periods(p, w);
  w.put("staticSessionTimeout", p.StaticSessionTimeout);
  w.put("automaticAccountDeactivation", p.AutomaticAccountDeactivation);
  timeFrame(p, w);
  days(p, w);
  dates(p, w);
  w.put("default", p.Default);
  w.put("timeZoneCode", text(p.TimeZoneCode));
  w.put("type", p.SecurityParameterType);
  return { doc: w.doc, warnings: w.warnings };
}

/** Every live security parameter, sorted by name. */
export const securityParameterExporter: KindExporter = {
  kind: "SecurityParameter",
  file: "security-parameters.yaml",
  key: "name",
  noun: "security parameters",
  export({ environment, live }: ExportContext): KindExport {
    const sorted = [...live.securityParameters].sort((a, b) => a.Name.localeCompare(b.Name, "en"));
    return conformEach(
      securityParameterKind,
      sorted,
      (parameter) => ({
        ...securityParameterDocument(parameter, environment.name),
        label: `SecurityParameter "${parameter.Name}"`,
      }),
      ["kind", "environments", "name"],
    );
  },
};

import { describe, expect, it } from "vitest";
import { errorsOf, lines, parameterDoc, statesOf, validate } from "./builders.ts";

function parametersOf(manifests: Record<string, unknown>) {
  return statesOf({ manifests: manifests as never })[0]?.securityParameters ?? [];
}

describe("SecurityParameter documents", () => {
  it("manage only the fields they set", () => {
    const [parameter] = parametersOf({ "p.yaml": parameterDoc({ minPasswordLength: 12 }) });
    expect(parameter).toEqual({
      kind: "SecurityParameter",
      name: "Contractor Parameter",
      fields: { MinPasswordLength: 12 },
      source: { file: "manifests/p.yaml", line: 2, column: 7 },
    });
  });

  it("normalize every field to the platform's names and codes", () => {
    const [parameter] = parametersOf({
      "p.yaml": parameterDoc({
        description: null,
        minPasswordLength: 14,
        alphaCharsRequired: 2,
        numericCharsRequired: 1,
        uppercaseCharsRequired: 1,
        lowercaseCharsRequired: 1,
        specialCharsRequired: 2,
        passwordChangeInterval: 30,
        passwordChangeLimit: true,
        graceLogins: 0,
        previousPasswordsDisallowed: 5,
        passwordExpirationNotice: 7,
        maximumFailedLoginAttempts: 3,
        lockoutPeriod: { value: 2, unit: "days" },
        sessionTimeout: { value: 8, unit: "hours" },
        staticSessionTimeout: 12,
        automaticAccountDeactivation: 60,
        limitByTimeFrame: true,
        permittedFrom: "7:30",
        permittedTo: "19:00:30",
        disallowedDays: ["saturday", "sunday", "wednesday"],
        disallowedDates: ["2026-12-26", "2026-12-25"],
        default: false,
        timeZoneCode: "Europe/Paris",
        type: 2,
      }),
    });
    expect(parameter?.fields).toEqual({
      Description: null,
      MinPasswordLength: 14,
      AlphaCharsRequired: 2,
      NumericCharsRequired: 1,
      UppercaseCharsRequired: 1,
      LowercaseCharsRequired: 1,
      SpecialCharsRequired: 2,
      PasswordChangeInterval: 30,
      PasswordChangeLimit: true,
      GraceLogins: 0,
      PreviousPasswordsDisallowed: 5,
      PasswordExpirationNotice: 7,
      MaximumFailedLoginAttempts: 3,
      LockoutPeriod: 2,
      LockoutPeriodType: 3,
      SessionTimeout: 8,
      SessionTimeoutType: 1,
      StaticSessionTimeout: 12,
      AutomaticAccountDeactivation: 60,
      IsLimitByTimeFrame: true,
      PermittedFromTime: "07:30:00",
      PermittedToTime: "19:00:30",
      IsDisallowedByDays: true,
      DisallowedSessionDays: [1, 8, 64],
      IsDisallowedByDates: true,
      DisallowedDates: [{ LockedDate: "2026-12-25T00:00:00" }, { LockedDate: "2026-12-26T00:00:00" }],
      Default: false,
      TimeZoneCode: "Europe/Paris",
      SecurityParameterType: 2,
    });
  });

  it("turn an empty list of days or dates into 'none'", () => {
    const [parameter] = parametersOf({ "p.yaml": parameterDoc({ disallowedDays: [], disallowedDates: [] }) });
    expect(parameter?.fields).toEqual({
      IsDisallowedByDays: false,
      DisallowedSessionDays: [],
      IsDisallowedByDates: false,
      DisallowedDates: [],
    });
  });

  it("report bad units, days, dates and times where they are written", () => {
    const text = [
      "kind: SecurityParameter",
      "name: Contractor Parameter",
      "lockoutPeriod: { value: 3, unit: weeks }",
      "disallowedDays: [sunday, funday]",
      "disallowedDates: [2026-02-30]",
      "permittedFrom: 25:00",
      "minPasswordLength: -1",
    ].join("\n");
    expect(lines(errorsOf({ manifests: { "p.yaml": text } }))).toEqual([
      "manifests/p.yaml:3:34 securityParameters[0].lockoutPeriod.unit: expected one of hours, minutes, days",
      "manifests/p.yaml:4:26 securityParameters[0].disallowedDays[1]: expected one of sunday, monday, tuesday, wednesday, thursday, friday, saturday",
      "manifests/p.yaml:5:19 securityParameters[0].disallowedDates[0]: expected a date, YYYY-MM-DD",
      "manifests/p.yaml:6:16 securityParameters[0].permittedFrom: expected a time of day, HH:MM (24-hour)",
      "manifests/p.yaml:7:20 securityParameters[0].minPasswordLength: must be at least 0",
    ]);
  });

  it("need both ends of a time frame, and each day or date once", () => {
    const errors = errorsOf({
      manifests: {
        "p.yaml": parameterDoc({
          limitByTimeFrame: true,
          permittedFrom: "08:00",
          disallowedDays: ["sunday", "sunday"],
          disallowedDates: ["2026-01-01", "2026-01-01"],
        }),
      },
    });
    expect(errors.map((e) => `${e.path}: ${e.message}`)).toEqual([
      "securityParameters[0].limitByTimeFrame: needs permittedTo (HH:MM)",
      "securityParameters[0].disallowedDays[1]: listed twice (also disallowedDays[0])",
      "securityParameters[0].disallowedDates[1]: listed twice (also disallowedDates[0])",
    ]);
  });

  it("warn when the required characters cannot fit in the minimum length", () => {
    const result = validate({
      manifests: {
        "p.yaml": parameterDoc({ minPasswordLength: 4, numericCharsRequired: 3, specialCharsRequired: 2 }),
      },
    });
    expect(result.ok).toBe(true);
    expect(result.warnings.map((w) => w.message)).toEqual([
      "the required characters add up to 5, more than minPasswordLength (4)",
    ]);
  });

  it("refuse two parameters with the same name, and two defaults, in one environment", () => {
    const errors = errorsOf({
      manifests: {
        "p.yaml": [
          parameterDoc({ name: "Contractor Parameter", default: true }),
          parameterDoc({ name: "CONTRACTOR PARAMETER" }),
          parameterDoc({ name: "Vendor Parameter", default: true }),
        ],
      },
    });
    expect(lines(errors)).toEqual([
      'manifests/p.yaml:6:7 securityParameters[1].name: SecurityParameter "CONTRACTOR PARAMETER" is also defined at manifests/p.yaml:2:7',
      "manifests/p.yaml:10:10 securityParameters[2].default: a second default security parameter for environment dev (the first is at manifests/p.yaml:3:10)",
    ]);
  });
});

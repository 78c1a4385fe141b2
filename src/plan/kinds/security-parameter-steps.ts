import { z } from "zod";

/*
 * The inputs of a security parameter's steps, shared by the planner, the plan file check and
 * src/apply/ops/security-parameter.ts.
 */

const int = z.number().int();

/** The managed fields, named as the interface names them (the manifest's `SecurityParameterFields`). */
const ParameterFields = z.object({
  Description: z.string().nullable().optional(),
  MinPasswordLength: int.optional(),
  AlphaCharsRequired: int.optional(),
  NumericCharsRequired: int.optional(),
  UppercaseCharsRequired: int.optional(),
  LowercaseCharsRequired: int.optional(),
  SpecialCharsRequired: int.optional(),
  PasswordChangeInterval: int.optional(),
  PasswordChangeLimit: z.boolean().optional(),
  GraceLogins: int.optional(),
  PreviousPasswordsDisallowed: int.optional(),
  PasswordExpirationNotice: int.optional(),
  MaximumFailedLoginAttempts: int.optional(),
  LockoutPeriod: int.optional(),
  LockoutPeriodType: int.optional(),
  SessionTimeout: int.optional(),
  SessionTimeoutType: int.optional(),
  StaticSessionTimeout: int.nullable().optional(),
  AutomaticAccountDeactivation: int.optional(),
  IsLimitByTimeFrame: z.boolean().optional(),
  PermittedFromTime: z.string().nullable().optional(),
  PermittedToTime: z.string().nullable().optional(),
  IsDisallowedByDays: z.boolean().optional(),
  DisallowedSessionDays: z.array(int).optional(),
  IsDisallowedByDates: z.boolean().optional(),
  DisallowedDates: z.array(z.object({ LockedDate: z.string() })).optional(),
  Default: z.boolean().optional(),
  TimeZoneCode: z.string().optional(),
  SecurityParameterType: int.optional(),
});

const Named = z.object({ name: z.string() });

/** The SecurityParameter kind: its name in plans, and its step ops with the schema of each op's input. */
export const securityParameterSteps = {
  kind: "SecurityParameter",
  ops: {
    "securityParameter.create": Named.extend({ fields: ParameterFields }),
    "securityParameter.update": Named.extend({ fields: ParameterFields }),
    "securityParameter.delete": Named,
  },
  actions: {
    create: ["securityParameter.create"],
    update: ["securityParameter.update"],
    delete: ["securityParameter.delete"],
  },
} as const;

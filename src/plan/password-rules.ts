import {
  countOf,
  type PasswordRules,
  type SecurityParameter,
  passwordShortfalls as shortfallsOf,
} from "../wire/index.ts";

/*
 * The planner's view of the platform's password rules (src/wire/password-rules.ts): it refuses an
 * initialPassword that the platform will refuse. Messages name what a password lacks, never the
 * password, its length or its characters.
 */

export type { PasswordRules };

export const PASSWORD_RULE_FIELDS = [
  "MinPasswordLength",
  "AlphaCharsRequired",
  "NumericCharsRequired",
  "UppercaseCharsRequired",
  "LowercaseCharsRequired",
  "SpecialCharsRequired",
] as const satisfies ReadonlyArray<keyof PasswordRules>;

/**
 * What the password lacks under `rules`, one phrase per broken rule, in the order of the seed's
 * fields; empty when it passes. An empty password always fails.
 */
export function passwordShortfalls(password: string, rules: PasswordRules): string[] {
  return shortfallsOf(password, rules).map(({ required, what }) => `at least ${countOf(required, what)}`);
}

/** The rules of `parameter` that are known (a number), so that a partial parameter checks what it can. */
export function passwordRulesOf(parameter: Partial<SecurityParameter> | undefined): PasswordRules {
  const rules: PasswordRules = {};
  for (const field of PASSWORD_RULE_FIELDS) {
    const value = parameter?.[field];
    if (typeof value === "number") rules[field] = value;
  }
  return rules;
}

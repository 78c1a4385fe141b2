import type { SecurityParameter } from "../wire/index.ts";

/*
 * The password rules of a security parameter (seed: MinPasswordLength and the five *CharsRequired
 * counts), as a pure check. The planner uses it to refuse an initialPassword that the platform will
 * refuse; it lives in plan so that apply (which may import plan) can share it. Messages name what a
 * password lacks, never the password, its length or its characters.
 */

/** The rules a password is checked against; an absent rule is unknown and not checked. */
export type PasswordRules = Partial<
  Pick<
    SecurityParameter,
    | "MinPasswordLength"
    | "AlphaCharsRequired"
    | "NumericCharsRequired"
    | "UppercaseCharsRequired"
    | "LowercaseCharsRequired"
    | "SpecialCharsRequired"
  >
>;

export const PASSWORD_RULE_FIELDS = [
  "MinPasswordLength",
  "AlphaCharsRequired",
  "NumericCharsRequired",
  "UppercaseCharsRequired",
  "LowercaseCharsRequired",
  "SpecialCharsRequired",
] as const satisfies ReadonlyArray<keyof PasswordRules>;

/** Character classes, as the counts name them; a special character is neither a letter nor a digit. */
const CLASSES = [
  { field: "AlphaCharsRequired", what: "letter", pattern: /\p{L}/gu },
  { field: "NumericCharsRequired", what: "digit", pattern: /\p{Nd}/gu },
  { field: "UppercaseCharsRequired", what: "upper-case letter", pattern: /\p{Lu}/gu },
  { field: "LowercaseCharsRequired", what: "lower-case letter", pattern: /\p{Ll}/gu },
  { field: "SpecialCharsRequired", what: "special character", pattern: /[^\p{L}\p{Nd}]/gu },
] as const;

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

/**
 * What the password lacks under `rules`, one phrase per broken rule, in the order of the seed's
 * fields; empty when it passes. An empty password always fails.
 */
export function passwordShortfalls(password: string, rules: PasswordRules): string[] {
  const shortfalls: string[] = [];
  const minimum = Math.max(rules.MinPasswordLength ?? 0, 1);
  if ([...password].length < minimum) shortfalls.push(`at least ${plural(minimum, "character")}`);
  for (const { field, what, pattern } of CLASSES) {
    const required = rules[field] ?? 0;
    if (required > 0 && (password.match(pattern)?.length ?? 0) < required)
      shortfalls.push(`at least ${plural(required, what)}`);
  }
  return shortfalls;
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

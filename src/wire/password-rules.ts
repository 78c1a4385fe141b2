import type { SecurityParameter } from "./security-parameter.ts";

/*
 * What a security parameter's password fields mean (seed: MinPasswordLength and the five
 * *CharsRequired counts): the platform's rule, so it has one home that both the planner (which
 * refuses what the platform would refuse) and the emulator (which refuses it) read. Pure: no I/O.
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

/** Character classes, as the counts name them; a special character is neither a letter nor a digit. */
export const PASSWORD_CHARACTER_CLASSES = [
  { field: "AlphaCharsRequired", what: "letter", pattern: /\p{L}/gu },
  { field: "NumericCharsRequired", what: "digit", pattern: /\p{Nd}/gu },
  { field: "UppercaseCharsRequired", what: "upper-case letter", pattern: /\p{Lu}/gu },
  { field: "LowercaseCharsRequired", what: "lower-case letter", pattern: /\p{Ll}/gu },
  { field: "SpecialCharsRequired", what: "special character", pattern: /[^\p{L}\p{Nd}]/gu },
] as const;

/** One broken rule: the field, how many it asks for, and what it counts ("digit"). */
export interface PasswordShortfall {
  field: keyof PasswordRules;
  required: number;
  what: string;
}

/** `1 digit`, `2 digits`. */
export function countOf(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

/**
 * The rules the password breaks, in the order of the seed's fields; empty when it passes. Length is
 * in characters, not UTF-16 units, and an empty password always fails.
 */
export function passwordShortfalls(password: string, rules: PasswordRules): PasswordShortfall[] {
  const shortfalls: PasswordShortfall[] = [];
  const minimum = Math.max(rules.MinPasswordLength ?? 0, 1);
  if ([...password].length < minimum)
    shortfalls.push({ field: "MinPasswordLength", required: minimum, what: "character" });
  for (const { field, what, pattern } of PASSWORD_CHARACTER_CLASSES) {
    const required = rules[field] ?? 0;
    if (required > 0 && (password.match(pattern)?.length ?? 0) < required)
      shortfalls.push({ field, required, what });
  }
  return shortfalls;
}

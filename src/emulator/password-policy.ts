import type { SecurityParameter } from "../wire/index.ts";

/*
 * The password rules of a security parameter, as a pure check. Messages never contain the
 * password, only what it lacks.
 */

export type PasswordPolicy = Pick<
  SecurityParameter,
  | "Name"
  | "MinPasswordLength"
  | "AlphaCharsRequired"
  | "NumericCharsRequired"
  | "UppercaseCharsRequired"
  | "LowercaseCharsRequired"
  | "SpecialCharsRequired"
  | "PreviousPasswordsDisallowed"
>;

export interface PasswordHistory {
  /** Hashes of the current password, then of earlier ones, newest first. */
  hashes: readonly string[];
  hash: (password: string) => string;
}

export interface PasswordViolation {
  key: string;
  description: string;
}

const CLASSES = [
  { field: "AlphaCharsRequired", what: "letter", pattern: /\p{L}/gu },
  { field: "NumericCharsRequired", what: "digit", pattern: /\p{Nd}/gu },
  { field: "UppercaseCharsRequired", what: "upper-case letter", pattern: /\p{Lu}/gu },
  { field: "LowercaseCharsRequired", what: "lower-case letter", pattern: /\p{Ll}/gu },
  { field: "SpecialCharsRequired", what: "special character", pattern: /[^\p{L}\p{Nd}]/gu },
] as const;

function count(text: string, pattern: RegExp): number {
  return text.match(pattern)?.length ?? 0;
}

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

/**
 * Everything the password breaks, in the policy's order; empty when it passes. With a history,
 * it also may not be one of the last `PreviousPasswordsDisallowed` passwords (the current included).
 */
export function passwordViolations(
  password: string,
  policy: PasswordPolicy,
  history?: PasswordHistory,
): PasswordViolation[] {
  const violations: PasswordViolation[] = [];
  const where = `security parameter "${policy.Name}"`;
  const length = [...password].length;
  if (length === 0 || length < policy.MinPasswordLength) {
    violations.push({
      key: "PasswordTooShort",
      description: `The password must be at least ${plural(Math.max(policy.MinPasswordLength, 1), "character")} long (${where}).`,
    });
  }
  for (const { field, what, pattern } of CLASSES) {
    const required = policy[field];
    if (required > 0 && count(password, pattern) < required) {
      violations.push({
        key: `PasswordNeeds${field.replace("CharsRequired", "")}`,
        description: `The password must contain at least ${plural(required, what)} (${where}).`,
      });
    }
  }
  const remembered = policy.PreviousPasswordsDisallowed;
  if (history && remembered > 0 && history.hashes.slice(0, remembered).includes(history.hash(password))) {
    violations.push({
      key: "PasswordReused",
      description: `The password may not be one of the last ${plural(remembered, "password")} (${where}).`,
    });
  }
  return violations;
}

/** The history after a change: the new hash first, trimmed to what the policy needs to remember. */
export function nextHistory(hashes: readonly string[], newHash: string, policy: PasswordPolicy): string[] {
  return [newHash, ...hashes].slice(0, Math.max(1, policy.PreviousPasswordsDisallowed));
}

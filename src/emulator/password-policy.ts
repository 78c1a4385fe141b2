import { countOf, type PasswordRules, passwordShortfalls, type SecurityParameter } from "../wire/index.ts";

/*
 * The password rules of a security parameter, as a pure check. Messages never contain the
 * password, only what it lacks.
 */

/** The password rules (wire/password-rules.ts), every one known here, with the history rule. */
export type PasswordPolicy = Required<PasswordRules> &
  Pick<SecurityParameter, "Name" | "PreviousPasswordsDisallowed">;

export interface PasswordHistory {
  /** Hashes of the current password, then of earlier ones, newest first. */
  hashes: readonly string[];
  hash: (password: string) => string;
}

export interface PasswordViolation {
  key: string;
  description: string;
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
  const where = `security parameter "${policy.Name}"`;
  const violations: PasswordViolation[] = passwordShortfalls(password, policy).map(
    ({ field, required, what }) =>
      field === "MinPasswordLength"
        ? {
            key: "PasswordTooShort",
            description: `The password must be at least ${countOf(required, what)} long (${where}).`,
          }
        : {
            key: `PasswordNeeds${field.replace("CharsRequired", "")}`,
            description: `The password must contain at least ${countOf(required, what)} (${where}).`,
          },
  );
  const remembered = policy.PreviousPasswordsDisallowed;
  if (history && remembered > 0 && history.hashes.slice(0, remembered).includes(history.hash(password))) {
    violations.push({
      key: "PasswordReused",
      description: `The password may not be one of the last ${countOf(remembered, "password")} (${where}).`,
    });
  }
  return violations;
}

/** The history after a change: the new hash first, trimmed to what the policy needs to remember. */
export function nextHistory(hashes: readonly string[], newHash: string, policy: PasswordPolicy): string[] {
  return [newHash, ...hashes].slice(0, Math.max(1, policy.PreviousPasswordsDisallowed));
}

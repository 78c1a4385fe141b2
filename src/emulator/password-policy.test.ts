import { describe, expect, it } from "vitest";
import { nextHistory, type PasswordPolicy, passwordViolations } from "./password-policy.ts";

function policy(fields: Partial<PasswordPolicy> = {}): PasswordPolicy {
  return {
    Name: "Test Policy",
    MinPasswordLength: 0,
    AlphaCharsRequired: 0,
    NumericCharsRequired: 0,
    UppercaseCharsRequired: 0,
    LowercaseCharsRequired: 0,
    SpecialCharsRequired: 0,
    PreviousPasswordsDisallowed: 0,
    ...fields,
  };
}

const keys = (password: string, p: PasswordPolicy) => passwordViolations(password, p).map((v) => v.key);

// A reversible stand-in for the store's salted hash.
const history = (...previous: string[]) => ({
  hashes: previous.map((pw) => `h(${pw})`),
  hash: (pw: string) => `h(${pw})`,
});

describe("passwordViolations", () => {
  it("enforces the minimum length, and never accepts an empty password", () => {
    expect(keys("short", policy({ MinPasswordLength: 8 }))).toEqual(["PasswordTooShort"]);
    expect(keys("longenough", policy({ MinPasswordLength: 8 }))).toEqual([]);
    expect(keys("exactly8", policy({ MinPasswordLength: 8 }))).toEqual([]);
    expect(keys("", policy())).toEqual(["PasswordTooShort"]);
  });

  it("counts each character class against its required number", () => {
    const strict = policy({
      AlphaCharsRequired: 4,
      NumericCharsRequired: 2,
      UppercaseCharsRequired: 1,
      LowercaseCharsRequired: 2,
      SpecialCharsRequired: 1,
    });
    expect(keys("Abcd12#", strict)).toEqual([]);
    expect(keys("Abc12#", strict)).toEqual(["PasswordNeedsAlpha"]);
    expect(keys("Abcd1#", strict)).toEqual(["PasswordNeedsNumeric"]);
    expect(keys("abcd12#", strict)).toEqual(["PasswordNeedsUppercase"]);
    expect(keys("ABCd12#", strict)).toEqual(["PasswordNeedsLowercase"]);
    expect(keys("Abcd12x", strict)).toEqual(["PasswordNeedsSpecial"]);
  });

  it("counts non-ASCII letters as letters and spaces as special characters", () => {
    const p = policy({ UppercaseCharsRequired: 1, LowercaseCharsRequired: 1, SpecialCharsRequired: 1 });
    expect(keys("Élan vital", p)).toEqual([]);
  });

  it("lists every violation and names the policy, never the password", () => {
    const violations = passwordViolations(
      "secret",
      policy({ MinPasswordLength: 10, NumericCharsRequired: 1, UppercaseCharsRequired: 2 }),
    );
    expect(violations.map((v) => v.key)).toEqual([
      "PasswordTooShort",
      "PasswordNeedsNumeric",
      "PasswordNeedsUppercase",
    ]);
    expect(violations[2]?.description).toBe(
      'The password must contain at least 2 upper-case letters (security parameter "Test Policy").',
    );
    for (const v of violations) expect(v.description).not.toContain("secret");
  });

  it("refuses the last PreviousPasswordsDisallowed passwords, the current one included", () => {
    const p = policy({ PreviousPasswordsDisallowed: 2 });
    const h = history("current", "older", "oldest");
    expect(passwordViolations("current", p, h).map((v) => v.key)).toEqual(["PasswordReused"]);
    expect(passwordViolations("older", p, h).map((v) => v.key)).toEqual(["PasswordReused"]);
    expect(passwordViolations("oldest", p, h)).toEqual([]);
    expect(passwordViolations("current", policy(), h)).toEqual([]);
  });
});

describe("nextHistory", () => {
  it("puts the new hash first and keeps only what the policy remembers", () => {
    expect(nextHistory(["b", "c", "d"], "a", policy({ PreviousPasswordsDisallowed: 3 }))).toEqual([
      "a",
      "b",
      "c",
    ]);
    expect(nextHistory(["b", "c"], "a", policy())).toEqual(["a"]);
  });
});

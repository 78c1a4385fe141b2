import { describe, expect, it } from "vitest";
import { passwordRulesOf, passwordShortfalls } from "./password-rules.ts";

describe("passwordShortfalls", () => {
  it("asks for the minimum length, and at least one character whatever the rules", () => {
    expect(passwordShortfalls("short", { MinPasswordLength: 8 })).toEqual(["at least 8 characters"]);
    expect(passwordShortfalls("exactly8", { MinPasswordLength: 8 })).toEqual([]);
    expect(passwordShortfalls("", {})).toEqual(["at least 1 character"]);
    // Counted in characters, not UTF-16 units: an emoji is one.
    expect(passwordShortfalls("ab😀", { MinPasswordLength: 4 })).toEqual(["at least 4 characters"]);
  });

  it("counts each class against its required number, in the order of the seed's fields", () => {
    const rules = {
      AlphaCharsRequired: 4,
      NumericCharsRequired: 2,
      UppercaseCharsRequired: 1,
      LowercaseCharsRequired: 2,
      SpecialCharsRequired: 1,
    };
    expect(passwordShortfalls("Abcd12!", rules)).toEqual([]);
    expect(passwordShortfalls("abcd12!", rules)).toEqual(["at least 1 upper-case letter"]);
    expect(passwordShortfalls("ABCDxy!", rules)).toEqual(["at least 2 digits"]);
    expect(passwordShortfalls("1", rules)).toEqual([
      "at least 4 letters",
      "at least 2 digits",
      "at least 1 upper-case letter",
      "at least 2 lower-case letters",
      "at least 1 special character",
    ]);
  });

  it("treats letters of any script as letters and anything else as special", () => {
    const rules = { UppercaseCharsRequired: 1, LowercaseCharsRequired: 1, SpecialCharsRequired: 2 };
    expect(passwordShortfalls("Ωé -", rules)).toEqual([]);
    expect(passwordShortfalls("Ωé-", rules)).toEqual(["at least 2 special characters"]);
  });

  it("never names the password, its length or its characters", () => {
    const password = "Mk9marker";
    const text = passwordShortfalls(password, {
      MinPasswordLength: 40,
      SpecialCharsRequired: 3,
      NumericCharsRequired: 5,
    }).join(" ");
    expect(text).toBe("at least 40 characters at least 5 digits at least 3 special characters");
    expect(text).not.toContain(String(password.length));
    expect(text).not.toContain("Mk9");
  });
});

describe("passwordRulesOf", () => {
  it("keeps the known rules of a parameter and leaves the unknown ones out", () => {
    expect(passwordRulesOf({ Name: "New", MinPasswordLength: 14, SpecialCharsRequired: 2 })).toEqual({
      MinPasswordLength: 14,
      SpecialCharsRequired: 2,
    });
    expect(passwordRulesOf(undefined)).toEqual({});
  });
});

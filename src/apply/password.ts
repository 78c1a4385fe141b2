import { randomInt } from "node:crypto";
import type { SecurityParameter } from "../wire/index.ts";

const UPPER = "ABCDEFGHJKLMNPQRSTUVWXYZ";
const LOWER = "abcdefghijkmnopqrstuvwxyz";
const DIGITS = "23456789";
const SPECIAL = "!#$%&*+-=?@^_";

function pick(alphabet: string): string {
  return alphabet.charAt(randomInt(alphabet.length));
}

/**
 * A random password that satisfies a security parameter's rules, at least 20 characters long.
 * It lives only in memory: the user must change it at first login (ForcePasswordChange).
 */
export function generatePassword(parameter: Partial<SecurityParameter> | undefined): string {
  const p = parameter ?? {};
  const required = [
    ...Array.from({ length: Math.max(p.UppercaseCharsRequired ?? 0, 2) }, () => pick(UPPER)),
    ...Array.from({ length: Math.max(p.LowercaseCharsRequired ?? 0, 2) }, () => pick(LOWER)),
    ...Array.from({ length: Math.max(p.NumericCharsRequired ?? 0, 2) }, () => pick(DIGITS)),
    ...Array.from({ length: Math.max(p.SpecialCharsRequired ?? 0, 2) }, () => pick(SPECIAL)),
  ];
  const length = Math.max(p.MinPasswordLength ?? 0, 20, required.length, p.AlphaCharsRequired ?? 0);
  const all = UPPER + LOWER + DIGITS + SPECIAL;
  while (required.length < length) required.push(pick(all));
  // Fisher–Yates, so the required classes are not always in front.
  for (let i = required.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [required[i], required[j]] = [required[j] as string, required[i] as string];
  }
  return required.join("");
}

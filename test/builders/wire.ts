import { userDefaults } from "../../src/emulator/seeds/fixed.ts";

/*
 * Objects as the interface answers them, for tests: every key in the order of the seed's tables
 * (the wire schemas' order), as the emulator seeds them. `overrides` replace values in place; keys
 * the interface does not have come after its own, as an instance would add them.
 */

export function wireUser(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...userDefaults(7, { FirstName: "Jane", LastName: "Doe", UserName: "jdoe" }), ...overrides };
}

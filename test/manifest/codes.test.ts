import { describe, expect, it } from "vitest";
import {
  CONTACT_SUBTYPE_CODES,
  CONTACT_TYPE_CODES,
  DAY_CODES,
  INSTALL_METHOD_CODES,
  INSTALL_OPTION_CODES,
  PACKAGE_OBJECT_TYPES,
  PERIOD_UNIT_CODES,
  STATUS_CODES,
  TRANSLATION_OPTION_CODES,
} from "../../src/manifest/index.ts";
import { subTypesFor } from "../../src/manifest/kinds/user.ts";
import {
  AccountStatus,
  ContactSubType,
  ContactType,
  contactSubTypeAllowed,
  Day,
  InstallMethod,
  InstallOption,
  PeriodType,
  TranslationOption,
  PACKAGE_OBJECT_TYPES as WIRE_OBJECT_TYPES,
} from "../../src/wire/index.ts";

/*
 * src/manifest may not import src/wire (DESIGN §1), so it keeps its own copy of the codes; this test
 * holds the two copies together.
 */

const lower = (record: Record<string, number>) =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key.toLowerCase(), value]));

describe("the manifest's words map to the interface's codes", () => {
  it("account status, period units and days", () => {
    expect(STATUS_CODES).toEqual(lower(AccountStatus));
    expect(PERIOD_UNIT_CODES).toEqual(lower(PeriodType));
    expect(DAY_CODES).toEqual(lower(Day));
  });

  it("contact types and subtypes, and which subtypes each type allows", () => {
    expect(CONTACT_TYPE_CODES).toEqual(lower(ContactType));
    expect(lower(CONTACT_SUBTYPE_CODES)).toEqual(lower(ContactSubType));
    for (const type of ["email", "phone"] as const) {
      const allowed = Object.values(CONTACT_SUBTYPE_CODES).filter((code) =>
        contactSubTypeAllowed(CONTACT_TYPE_CODES[type], code),
      );
      expect(subTypesFor(type).map((name) => CONTACT_SUBTYPE_CODES[name])).toEqual(allowed);
    }
  });

  it("package install options and object types", () => {
    expect(Object.values(INSTALL_METHOD_CODES)).toEqual(Object.values(InstallMethod));
    expect(Object.values(INSTALL_OPTION_CODES)).toEqual(Object.values(InstallOption));
    expect(Object.values(TRANSLATION_OPTION_CODES)).toEqual(Object.values(TranslationOption));
    expect([...PACKAGE_OBJECT_TYPES].sort()).toEqual([...WIRE_OBJECT_TYPES].sort());
  });
});

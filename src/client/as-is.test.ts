import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Contact, ContactsByUser, FieldDefinition, IdObject, Level, User } from "../wire/index.ts";
import { asIsOf } from "./as-is.ts";

/*
 * "As is" only where the schema's parse would return a value equal to the input (the same keys in
 * the same order, the same values); never where zod fails. Checked on the wire schemas the reads
 * use, over valid answers and many small changes to them.
 */

const UserRead = User.loose();
const ContactsRead = ContactsByUser.extend({ Contacts: Contact.loose().array() }).loose();
const FieldRead = FieldDefinition.loose();

const info = { CreateDate: "2026-01-01", UpdateDate: null, CreateLogin: 1, UpdateLogin: null };

/** A user, its keys in the schema's order. */
function user(): Record<string, unknown> {
  return {
    Id: 7,
    DisplayName: "Doe, Jane",
    FirstName: "Jane",
    MiddleName: null,
    LastName: "Doe",
    LastLoginDate: null,
    UserName: "jdoe",
    AccountStatus: 1,
    DomainId: null,
    SecurityId: 2,
    Locale: null,
    TimeZoneId: "UTC",
    Address: null,
    Company: null,
    Title: "Analyst",
    AdditionalNote: null,
    BusinessUnit: null,
    Department: null,
    DistinguishedName: null,
    ForcePasswordChange: false,
    Type: 1,
    LanguageId: 1,
    DefaultHomeDashboardId: -1,
    DefaultHomeWorkspaceId: -1,
    UpdateInformation: { ...info },
    Extra: { nested: [1, "two", null] },
  };
}

/** A user with no key the wire schema does not know. */
function known(): Record<string, unknown> {
  const { Extra: _, ...rest } = user();
  return rest;
}

function field(): Record<string, unknown> {
  return {
    Id: 24,
    Guid: "050e7c8e",
    Alias: "Status",
    Name: "Status",
    LevelId: 5,
    Type: 4,
    IsActive: true,
    IsRequired: false,
    Description: null,
    ValuesListValues: [{ Id: 13, Guid: "8c19", Name: "Open" }],
    RelatedValuesListId: 25,
    ReferencedLevelIds: [5, 6],
    SubformModuleId: null,
    Translations: [],
    UpdateInformation: { ...info },
  };
}

function contacts(): Record<string, unknown> {
  return {
    UserId: 2,
    Contacts: [{ Id: 1, ContactType: 7, ContactSubType: 2, IsDefault: true, Value: "a@example.com" }],
  };
}

/** Keys in order, all the way down: what JSON.stringify shows of a value. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shapeOf);
  if (value !== null && typeof value === "object") {
    return Object.keys(value).map((key) => [key, shapeOf((value as Record<string, unknown>)[key])]);
  }
  return value;
}

/** Small changes to a valid value: each key dropped, nulled, retyped, moved; keys added. */
function variants(base: Record<string, unknown>): unknown[] {
  const out: unknown[] = [base, { ...base, Added: 1 }, { Added: 1, ...base }, [], null, "text"];
  const keys = Object.keys(base);
  out.push(Object.fromEntries([...keys].reverse().map((key) => [key, base[key]])));
  out.push(Object.fromEntries([...keys].sort().map((key) => [key, base[key]])));
  for (const key of keys) {
    const { [key]: dropped, ...rest } = base;
    out.push(rest);
    out.push({ ...base, [key]: null });
    out.push({ ...base, [key]: "x" });
    out.push({ ...base, [key]: 1.5 });
    out.push({ ...base, [key]: [] });
    out.push({ ...base, [key]: {} });
    out.push({ ...rest, [key]: dropped });
    const value = base[key];
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      out.push({ ...base, [key]: { ...value, Added: true } });
      out.push({ ...base, [key]: Object.fromEntries(Object.entries(value).reverse()) });
    }
    if (Array.isArray(value) && value.length > 0) {
      out.push({ ...base, [key]: [...value, null] });
      out.push({ ...base, [key]: value.map((item) => ({ Added: 1, ...(item as object) })) });
      out.push({ ...base, [key]: value.map((item) => ({ ...(item as object), Added: 1 })) });
    }
  }
  out.push(JSON.parse('{"__proto__": {"x": 1}, "Id": 1}'));
  out.push(Object.assign(Object.create(null), base));
  out.push({ 1: "index first", ...base });
  return out;
}

/** Checks one input; answers whether it was taken as is. */
function expectSame(schema: z.ZodType, input: unknown): boolean {
  const asIs = asIsOf(schema);
  if (!asIs) throw new Error("no predicate");
  // Neither changes its input.
  if (!asIs(input)) return false;
  const parsed = schema.safeParse(input);
  expect(parsed.success).toBe(true);
  expect(shapeOf(input)).toEqual(shapeOf(parsed.data));
  expect(JSON.stringify(input)).toBe(JSON.stringify(parsed.data));
  return true;
}

describe("asIsOf", () => {
  const cases: Array<[string, z.ZodType, () => Record<string, unknown>]> = [
    ["a loose user", UserRead, user],
    ["a user of a strip schema", User, known],
    ["a user of a partial schema", UserRead.partial(), user],
    ["a field definition", FieldRead, field],
    ["a user's contacts", ContactsRead, contacts],
    ["an id", IdObject, () => ({ Id: 3 })],
    ["a strict id", IdObject.strict(), () => ({ Id: 3 })],
    [
      "enums and literals",
      z.object({ Kind: z.enum(["x", "y"]), One: z.literal(2), Any: z.unknown() }).loose(),
      () => ({ Kind: "y", One: 2, Any: { free: [1] } }),
    ],
  ];
  for (const [name, schema, make] of cases) {
    it(`only where zod would answer the same value: ${name}`, () => {
      const outcomes = variants(make()).map((input) => expectSame(schema, input));
      expect(outcomes[0]).toBe(true);
      expect(outcomes).toContain(false);
    });
  }

  it("not for keys in another order than the schema's, nor for keys a strip schema drops", () => {
    const reordered = Object.fromEntries(Object.entries(user()).reverse());
    expect(UserRead.safeParse(reordered).success).toBe(true);
    expect(asIsOf(UserRead)?.(reordered)).toBe(false);
    expect(asIsOf(User)?.(user())).toBe(false);
    expect(asIsOf(User)?.(known())).toBe(true);
  });

  it("has none for schemas with parts it does not know", () => {
    expect(asIsOf(z.object({ a: z.string().min(1) }))).toBeUndefined();
    expect(asIsOf(z.object({ a: z.string().default("x") }))).toBeUndefined();
    expect(asIsOf(z.object({ a: z.string().transform((s) => s.length) }))).toBeUndefined();
    expect(asIsOf(z.object({ a: z.union([z.string(), z.number()]) }))).toBeUndefined();
    expect(asIsOf(z.object({ a: z.number() }).refine(() => true))).toBeUndefined();
    expect(asIsOf(Level.loose())).toBeDefined();
  });
});

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { wireUser } from "../../test/builders/wire.ts";
import { BUILT_IN_DOCUMENT_KINDS } from "../manifest/kinds/index.ts";
import { PackageDocument } from "../manifest/kinds/package.ts";
import { SecurityParameterDocument } from "../manifest/kinds/security-parameter.ts";
import { UserDocument } from "../manifest/kinds/user.ts";
import { Contact, ContactsByUser, FieldDefinition, IdObject, User } from "../wire/index.ts";
import { safeParseFast } from "./as-is.ts";

/** Whether the shortcut took `input` as is: zod's answer is the input itself (zod's own parse copies every object). */
const asIsOf = (schema: z.ZodType) => (input: unknown) => {
  const fast = safeParseFast(schema, input);
  return fast.success && fast.data === input;
};

/** A schema's shortcut exists when a valid object in the schema's order comes back as is. */
const compiles = (schema: z.ZodType, valid: unknown) => asIsOf(schema)(valid);

/*
 * The predicate (the client's reads): "as is" only where the schema's parse would return a value equal to the input (the same keys in
 * the same order, the same values); never where zod fails. Checked on the wire schemas the reads
 * use, over valid answers and many small changes to them. safeParseFast (the manifest's documents):
 * zod's success, zod's data (keys in zod's order) and zod's issues, on the same values and on the
 * manifest kinds' schemas.
 */

const UserRead = User.loose();
const ContactsRead = ContactsByUser.extend({ Contacts: Contact.loose().array() }).loose();
const FieldRead = FieldDefinition.loose();

const info = { CreateDate: "2026-01-01", UpdateDate: null, CreateLogin: 1, UpdateLogin: null };

/** A user, its keys in the schema's order. */
function user(): Record<string, unknown> {
  return wireUser({
    Title: "Analyst",
    UpdateInformation: { ...info },
    Extra: { nested: [1, "two", null] },
  });
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
    ReferencedLevelIds: [5, 6],
    RelatedSubformId: null,
    Translations: [],
    UpdateInformation: { ...info },
    RelatedValuesListId: 25,
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

/** The keys for-in lists, inherited ones included. */
function* forInKeys(value: object): Generator<string> {
  for (const key in value) yield key;
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
  out.push(JSON.parse(`${JSON.stringify(base).slice(0, -1)},"__proto__":{"x":1}}`));
  out.push({ ...base, Added: undefined });
  out.push({ ...base, 2: "index later" });
  out.push(Object.assign(Object.create(null), base));
  out.push({ 1: "index first", ...base });
  return out;
}

/** The shortcut's answer and zod's, side by side: same success, same data, keys in the same order. */
function bothOn(schema: z.ZodType, value: unknown) {
  const fast = safeParseFast(schema, value);
  const slow = schema.safeParse(value);
  return { fast, slow };
}

/** safeParseFast answers what zod answers: success, data with its keys in zod's order, issues. */
function expectZodsAnswer(schema: z.ZodType, input: unknown): void {
  const { fast, slow } = bothOn(schema, input);
  expect(fast.success).toBe(slow.success);
  expect(shapeOf(fast.data)).toEqual(shapeOf(slow.data));
  expect(fast.error?.issues).toEqual(slow.error?.issues);
}

/** Checks one input; answers whether it was taken as is. */
function expectSame(schema: z.ZodType, input: unknown): boolean {
  const asIs = asIsOf(schema);
  expectZodsAnswer(schema, input);
  // Neither changes its input.
  if (!asIs(input)) return false;
  const parsed = schema.safeParse(input);
  expect(parsed.success).toBe(true);
  expect(shapeOf(input)).toEqual(shapeOf(parsed.data));
  expect(JSON.stringify(input)).toBe(JSON.stringify(parsed.data));
  return true;
}

describe("taken as is", () => {
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
    expect(asIsOf(UserRead)(reordered)).toBe(false);
    expect(asIsOf(User)(user())).toBe(false);
    expect(asIsOf(User)(known())).toBe(true);
  });

  it("not for a key of the schema that the input only inherits, even in the schema's order", () => {
    // The schema's last key comes from Object.prototype: for-in lists it last, where the shape has it.
    const { UpdateInformation: _, ...rest } = known();
    const polluted = Object.prototype as Record<string, unknown>;
    const inherited = { value: null, enumerable: true, configurable: true, writable: true };
    Object.defineProperty(polluted, "UpdateInformation", inherited);
    let listed: string[];
    let taken: boolean | undefined;
    try {
      listed = [...forInKeys(rest)];
      taken = asIsOf(UserRead)(rest);
    } finally {
      delete polluted.UpdateInformation;
    }
    expect(listed.at(-1)).toBe("UpdateInformation");
    expect(taken).toBe(false);
  });

  it("has none for schemas with parts it does not know", () => {
    expect(compiles(z.object({ a: z.string().default("x") }), { a: "x" })).toBe(false);
    expect(compiles(z.object({ a: z.string().transform((s) => s) }), { a: "x" })).toBe(false);
    expect(compiles(z.object({ a: z.union([z.string(), z.number()]) }), { a: "x" })).toBe(false);
    expect(
      compiles(
        z.object({ a: z.number() }).refine(() => true),
        { a: 1 },
      ),
    ).toBe(false);
    expect(compiles(z.object({ a: z.number() }), { a: 1 })).toBe(true);
  });

  it("leaves a field with checks to zod, and takes it as is only when zod gives that very value back", () => {
    const trimmed = z.object({ a: z.string().trim() });
    expect(asIsOf(trimmed)({ a: "x" })).toBe(true);
    expect(asIsOf(trimmed)({ a: " x " })).toBe(false);
    expectZodsAnswer(trimmed, { a: " x " });
    const formats = z.object({ a: z.email(), b: z.int(), c: z.number().int().min(1) });
    const valid = { a: "j@example.com", b: 1, c: 2 };
    expect(asIsOf(formats)(valid)).toBe(true);
    for (const input of [valid, { ...valid, a: "nobody" }, { ...valid, b: 1.5 }, { ...valid, c: 0 }])
      expectZodsAnswer(formats, input);
    const lengths = z.object({ list: z.array(z.string().regex(/^x/)).min(1).max(2) });
    expect(asIsOf(lengths)({ list: ["x1"] })).toBe(true);
    for (const list of [[], ["x1", "x2", "x3"], ["y"], ["x", 1]]) {
      expect(asIsOf(lengths)({ list })).toBe(false);
      expectZodsAnswer(lengths, { list });
    }
  });

  it("safeParseFast returns the value itself when as is, else zod's copy without asking zod", () => {
    const input = user();
    expect(safeParseFast(UserRead, input).data).toBe(input);
    const reordered = Object.fromEntries(Object.entries(input).reverse());
    const copy = safeParseFast(UserRead, reordered).data;
    expect(copy).not.toBe(reordered);
    expect(shapeOf(copy)).toEqual(shapeOf(UserRead.parse(reordered)));
  });
});

const VALID_USERS: unknown[] = [
  { kind: "User", userName: "jdoe", firstName: "Jane", lastName: "Doe" },
  {
    contacts: [
      { default: true, value: "j@example.com", subType: "business", type: "email" },
      { type: "phone", subType: "mobile", value: "+1 555" },
    ],
    lastName: "Doe",
    kind: "User",
    environments: ["dev", "prod.eu"],
    userName: "j doe",
    firstName: "Jane",
    middleName: null,
    displayName: "Doe, Jane",
    status: "locked",
    securityParameter: "General User Parameter",
    languageId: 3,
    forcePasswordChange: false,
    domain: null,
    roles: [],
    groups: ["Everyone", "Risk Owners"],
    initialPassword: "x",
    ensure: "present",
  },
  // Never out of YAML; zod's answer, through zod.
  { kind: "User", userName: "jdoe", firstName: "Jane", lastName: "Doe", title: undefined },
];

const INVALID_USERS: unknown[] = [
  null,
  [],
  "User",
  { kind: "User", userName: "jdoe", firstName: "Jane" },
  { kind: "User", userName: " jdoe", firstName: "Jane", lastName: "Doe" },
  { kind: "User", userName: "", firstName: "Jane", lastName: "Doe" },
  { kind: "User", userName: "jdoe", firstName: "Jane", lastName: "Doe", extra: 1 },
  { kind: "User", userName: "jdoe", firstName: "Jane", lastName: "Doe", languageId: 0 },
  { kind: "User", userName: "jdoe", firstName: "Jane", lastName: "Doe", languageId: 1.5 },
  {
    kind: "User",
    userName: "jdoe",
    firstName: "Jane",
    lastName: "Doe",
    languageId: Number.POSITIVE_INFINITY,
  },
  { kind: "User", userName: "jdoe", firstName: "Jane", lastName: "Doe", status: "gone" },
  { kind: "User", userName: "jdoe", firstName: "Jane", lastName: "Doe", environments: [] },
  { kind: "User", userName: "jdoe", firstName: "Jane", lastName: "Doe", environments: ["a b"] },
  { kind: "User", userName: "jdoe", firstName: "Jane", lastName: "Doe", groups: [""] },
  { kind: "User", userName: "jdoe", firstName: "Jane", lastName: "Doe", contacts: [{ type: "email" }] },
  { kind: "User", userName: "jdoe", firstName: "Jane", lastName: "Doe", ensure: "absent" },
  { kind: "Users", userName: "jdoe", firstName: "Jane", lastName: "Doe" },
  JSON.parse('{"kind":"User","userName":"jdoe","firstName":"Jane","lastName":"Doe","__proto__":{"a":1}}'),
];

describe("the validation shortcut", () => {
  it("compiles the schema of the documents that come in thousands", () => {
    expect(compiles(UserDocument, VALID_USERS[0])).toBe(true);
  });

  it("returns zod's data, keys in zod's order, for valid documents", () => {
    for (const value of VALID_USERS) {
      const { fast, slow } = bothOn(UserDocument, value);
      expect(slow.success).toBe(true);
      expect(fast.success).toBe(true);
      expect(shapeOf(fast.data)).toEqual(shapeOf(slow.data));
    }
  });

  it("leaves every invalid document to zod, whose issues are returned", () => {
    for (const value of INVALID_USERS) {
      const { fast, slow } = bothOn(UserDocument, value);
      expect(slow.success).toBe(false);
      expect(fast.success).toBe(false);
      expect(fast.error?.issues).toEqual(slow.error?.issues);
    }
  });

  it("goes through zod for what it does not know (a transform, a typed catchall) and for a format that fails", () => {
    expect(compiles(z.object({ a: z.string() }).catchall(z.string()), { a: "x", b: "y" })).toBe(false);
    const guid = z.strictObject({ id: z.guid() });
    expect(safeParseFast(guid, { id: "not a guid" }).success).toBe(false);
    expect(safeParseFast(guid, { id: "5f0c7a8e-1b2c-4d3e-8f9a-0b1c2d3e4f5a" }).success).toBe(true);
  });

  it("agrees with zod on every kind's schema for a sample of values", () => {
    const samples = [...VALID_USERS, ...INVALID_USERS, { kind: "SecurityParameter", name: "p" }, {}];
    const schemas = [
      ...BUILT_IN_DOCUMENT_KINDS.all.map((kind) => kind.schema),
      UserDocument,
      SecurityParameterDocument,
    ];
    for (const schema of schemas) {
      for (const value of samples) {
        const { fast, slow } = bothOn(schema, value);
        expect(fast.success).toBe(slow.success);
        expect(shapeOf(fast.data)).toEqual(shapeOf(slow.data));
      }
    }
  });
});

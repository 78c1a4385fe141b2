import { describe, expect, it } from "vitest";
import { z } from "zod";
import { compilesFast, safeParseFast } from "../../src/manifest/fast-schema.ts";
import { KINDS } from "../../src/manifest/kinds/index.ts";
import { PackageDocument } from "../../src/manifest/kinds/package.ts";
import { SecurityParameterDocument } from "../../src/manifest/kinds/security-parameter.ts";
import { UserDocument } from "../../src/manifest/kinds/user.ts";

/** The shortcut's answer and zod's, side by side: same success, same data, keys in the same order. */
function bothOn(schema: z.ZodType, value: unknown) {
  const fast = safeParseFast(schema, value);
  const slow = schema.safeParse(value);
  return { fast, slow };
}

const keysDeep = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(keysDeep)
    : value !== null && typeof value === "object"
      ? Object.entries(value).map(([key, item]) => [key, keysDeep(item)])
      : value;

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
    expect(compilesFast(UserDocument)).toBe(true);
  });

  it("returns zod's data, keys in zod's order, for valid documents", () => {
    for (const value of VALID_USERS) {
      const { fast, slow } = bothOn(UserDocument, value);
      expect(slow.success).toBe(true);
      expect(fast.success).toBe(true);
      expect(keysDeep(fast.data)).toEqual(keysDeep(slow.data));
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

  it("goes through zod for what it does not know (a string format, a transform, a loose object)", () => {
    expect(compilesFast(PackageDocument)).toBe(false);
    expect(compilesFast(SecurityParameterDocument)).toBe(false);
    expect(compilesFast(z.string().transform((text) => text.length))).toBe(false);
    expect(compilesFast(z.object({ a: z.string() }))).toBe(false);
    const guid = z.strictObject({ id: z.guid() });
    expect(safeParseFast(guid, { id: "not a guid" }).success).toBe(false);
    expect(safeParseFast(guid, { id: "5f0c7a8e-1b2c-4d3e-8f9a-0b1c2d3e4f5a" }).success).toBe(true);
  });

  it("agrees with zod on every kind's schema for a sample of values", () => {
    const samples = [...VALID_USERS, ...INVALID_USERS, { kind: "SecurityParameter", name: "p" }, {}];
    const schemas = [...KINDS.map((kind) => kind.schema), UserDocument, SecurityParameterDocument];
    for (const schema of schemas) {
      for (const value of samples) {
        const { fast, slow } = bothOn(schema, value);
        expect(fast.success).toBe(slow.success);
        expect(keysDeep(fast.data)).toEqual(keysDeep(slow.data));
      }
    }
  });
});

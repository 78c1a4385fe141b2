import { describe, expect, it } from "vitest";
import { type Json, type RawOptions, useEmulator } from "../helpers/raw.ts";

/*
 * Malformed requests to the users and security parameter segments: each must get a 4xx envelope
 * with at least one validation message, never a 500, and the server must keep answering.
 */

const LIMIT = 64 * 1024;

interface Case {
  name: string;
  path: string;
  options: RawOptions;
}

const json = (method: string, path: string, body: unknown, name: string): Case => ({
  name,
  path,
  options: { method, body },
});
const raw = (
  method: string,
  path: string,
  rawBody: string,
  name: string,
  headers?: Record<string, string>,
): Case => ({
  name,
  path,
  options: { method, rawBody, headers },
});

const USER = "/core/system/user";
const PARAMETER = "/core/system/securityparameter";
const validUser = { FirstName: "Rob", LastName: "Ust" };

const updateUser = { Id: 2, FirstName: "A", LastName: "B", UserName: "x", AccountStatus: 1 };
const createBody = (user: object, extra: object = {}) => ({
  User: { ...validUser, ...user },
  Password: "Strong#Pass1",
  ...extra,
});

const CASES: Case[] = [
  // Malformed JSON and bodies of the wrong shape.
  raw("POST", USER, "{not json", "malformed JSON on create user"),
  raw("PUT", USER, '{"User": {"Id": 2,', "truncated JSON on update user"),
  raw("PUT", "/core/system/userrole", "{'UserId': 2}", "single-quoted JSON on userrole"),
  raw("POST", PARAMETER, "[1, 2", "malformed JSON on create parameter"),
  raw("POST", USER, "null", "a null body"),
  raw("POST", USER, "[]", "an array body"),
  raw("POST", USER, "42", "a number body"),
  raw("PUT", "/core/system/userpassword", '"text"', "a string body"),
  raw("POST", USER, "{}", "an empty object"),
  raw(
    "POST",
    USER,
    '{"__proto__": {"User": {"FirstName": "Rob", "LastName": "Ust"}, "Password": "Strong#Pass1"}}',
    "a body whose keys hide under __proto__",
  ),
  raw("POST", USER, `${"[".repeat(20_000)}${"]".repeat(20_000)}`, "deeply nested arrays"),
  raw("POST", USER, "FirstName=A&LastName=B", "a form body", {
    "content-type": "application/x-www-form-urlencoded",
  }),
  raw("POST", USER, "<User/>", "an XML body", { "content-type": "text/plain" }),
  raw(
    "POST",
    USER,
    '{"User": {"FirstName": "Rob", "LastName": "Ust", "LanguageId": 1e309}, "Password": "Strong#Pass1"}',
    "LanguageId beyond a double",
  ),
  // Wrong types inside a create body.
  json("POST", USER, createBody({ AccountStatus: "abc" }), "AccountStatus abc"),
  json("POST", USER, createBody({ AccountStatus: 1.5 }), "AccountStatus 1.5"),
  json("POST", USER, createBody({}, { Roles: "x" }), "Roles a string"),
  json("POST", USER, createBody({}, { Roles: ["a"] }), "Roles of strings"),
  json("POST", USER, createBody({}, { Roles: [{ Id: 2 }] }), "Roles of objects"),
  json("POST", USER, { User: [validUser], Password: "Strong#Pass1" }, "User an array"),
  json("POST", USER, { User: "Rob Ust", Password: "Strong#Pass1" }, "User a string"),
  json("POST", USER, { User: null, Password: "Strong#Pass1" }, "User null"),
  json("POST", USER, { User: validUser, Password: { value: "x" } }, "Password an object"),
  json("POST", USER, createBody({ SecurityId: "two" }), "SecurityId a word"),
  json("POST", USER, createBody({ ForcePasswordChange: "maybe" }), "a boolean that is maybe"),
  json("POST", USER, createBody({ DomainId: 2 ** 60 }), "DomainId beyond a safe integer"),
  // Wrong types inside an update body.
  json("PUT", USER, { User: { ...updateUser, Id: "two" } }, "Id a word"),
  json("PUT", USER, { User: updateUser, Contacts: {} }, "Contacts an object"),
  json("PUT", USER, { User: updateUser, Contacts: [1] }, "Contacts of numbers"),
  json("PUT", USER, { User: updateUser, Groups: [null] }, "Groups of null"),
  json("PUT", USER, { User: { ...updateUser, FirstName: [] } }, "FirstName an array"),
  json("PUT", USER, { User: { ...updateUser, Id: 9_999_999 } }, "an unknown user"),
  // Memberships and passwords.
  json("PUT", "/core/system/userrole", { UserId: 2, RoleId: 1, IsAdd: "maybe" }, "IsAdd maybe"),
  json("PUT", "/core/system/userrole", { UserId: 2, IsAdd: true }, "RoleId missing"),
  json("PUT", "/core/system/userrole", { UserId: 2, RoleId: 999, IsAdd: true }, "an unknown role"),
  json("PUT", "/core/system/usergroup", { UserId: "1.5", GroupId: 1, IsAdd: true }, "UserId 1.5"),
  json("PUT", "/core/system/usergroup", { UserId: 999_999, GroupId: 1, IsAdd: true }, "an unknown user"),
  json("PUT", "/core/system/userpassword", { UserId: 2 }, "NewPassword missing"),
  json("PUT", "/core/system/userpassword", { UserId: 2, NewPassword: null }, "NewPassword null"),
  json("PUT", "/core/system/userpassword", { UserId: 2, NewPassword: "" }, "NewPassword empty"),
  // Security parameters.
  json("POST", PARAMETER, { Name: { en: "x" } }, "Name an object"),
  json("POST", PARAMETER, { Name: null }, "Name null"),
  json("POST", PARAMETER, { Name: "X1", DisallowedSessionDays: "monday" }, "days a word"),
  json("POST", PARAMETER, { Name: "X2", DisallowedDates: [{ LockedDate: 5 }] }, "LockedDate a number"),
  json("POST", PARAMETER, { Name: "X3", DisallowedDates: "2026-01-01" }, "DisallowedDates a string"),
  raw("POST", PARAMETER, '{"Name": "X4", "MinPasswordLength": 99999999999999999999}', "a huge count"),
  json("POST", PARAMETER, { Name: "X5", PasswordChangeLimit: "sometimes" }, "a boolean that is a word"),
  json("PUT", PARAMETER, { Name: "No id" }, "update without Id, Alias, GUID"),
  json("PUT", PARAMETER, { Id: 2, Alias: [], GUID: {} }, "Alias and GUID of the wrong type"),
  // Unknown and non-numeric ids in paths.
  json("GET", `${USER}/999999`, undefined, "an unknown user id"),
  json("GET", `${USER}/abc`, undefined, "a non-numeric user id"),
  json("GET", `${USER}/1e3`, undefined, "an exponent user id"),
  json("GET", `${USER}/99999999999`, undefined, "an id too large"),
  json("DELETE", `${USER}/%20`, undefined, "a blank user id"),
  json("POST", `${USER}/status/active/x`, undefined, "a non-numeric id to activate"),
  json("GET", `${USER}/group/-2`, undefined, "a negative group id"),
  json("GET", `${USER}/group/999`, undefined, "an unknown group"),
  json("GET", "/core/system/usercontact/xyz", undefined, "a non-numeric contact user id"),
  json("GET", `${PARAMETER}/1.0`, undefined, "a decimal parameter id"),
  json("DELETE", `${PARAMETER}/999999`, undefined, "an unknown parameter"),
  // Bad queries.
  json("GET", `${USER}?$top=abc`, undefined, "$top a word"),
  json("GET", `${USER}?$filter=Id%20eq%20'1`, undefined, "an unterminated literal"),
  json("GET", `${USER}?$format=xml`, undefined, "an unsupported option"),
];

describe("robustness", () => {
  const { raw: client } = useEmulator({ seed: "demo-dev", bodyLimit: LIMIT });

  it("has dozens of cases", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(50);
  });

  it.each(CASES.map((c) => [c.name, c] as const))(
    "%s: a 4xx envelope with a validation message",
    async (_name, c) => {
      const token = await client().token();
      const response = await client().call<Json>(c.path, { token, ...c.options });
      expect(response.status, response.text).toBeGreaterThanOrEqual(400);
      expect(response.status, response.text).toBeLessThan(500);
      expect(response.body.IsSuccessful).toBe(false);
      expect(response.body.ValidationMessages.length).toBeGreaterThan(0);
      expect(typeof response.body.ValidationMessages[0].Description).toBe("string");
    },
  );

  it("a body over the limit is 413 with an envelope", async () => {
    const token = await client().token();
    const response = await client().call<Json>(USER, {
      method: "POST",
      token,
      body: { User: { ...validUser, AdditionalNote: "x".repeat(LIMIT) }, Password: "Strong#Pass1" },
    });
    expect(response.status).toBe(413);
    expect(response.body.IsSuccessful).toBe(false);
    expect(response.body.ValidationMessages[0].MessageKey).toBe("RequestTooLarge");
  });

  it("a read with a query Value that is not a string is a 400", async () => {
    const token = await client().token();
    for (const Value of [{}, [1], true]) {
      const response = await client().read<Json>("/core/system/task", token, { body: { Value } });
      expect(response.status).toBe(400);
      expect(response.body.ValidationMessages.length).toBeGreaterThan(0);
    }
  });

  it("the server still answers a login and a read afterwards, and nothing was created", async () => {
    const login = await client().login();
    expect(login.body.IsSuccessful).toBe(true);
    const users = await client().read<Json>(USER, login.body.RequestedObject.SessionToken);
    expect(users.status).toBe(200);
    expect(users.body.map((e: Json) => e.RequestedObject.UserName)).not.toContain("ustr");
    expect(users.body).toHaveLength(9);
  });
});

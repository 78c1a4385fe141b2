// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import {
  environmentDoc,
  errorsOf,
  lines,
  parameterDoc,
  realEnvironmentDoc,
  statesOf,
  userDoc,
  VARIABLES,
  validate,
} from "./builders.ts";

const TWO_ENVIRONMENTS = {
  dev: environmentDoc({
    roles: { "General User": 2, "Risk Manager": 3, Auditor: 4 },
    groups: { Everyone: 1, "Risk Owners": 3 },
    domains: { CORP: 1 },
  }),
  prod: environmentDoc({
    roles: { "General User": 2, Auditor: 3, "Risk Manager": 4 },
    groups: { Everyone: 1, "Risk Owners": 4 },
    domains: { CORP: 7 },
  }),
};

function usersIn(environment: string, manifests: Record<string, unknown>) {
  const states = statesOf({ environments: TWO_ENVIRONMENTS, manifests: manifests as never });
  return states.find((state) => state.environment.name === environment)?.users ?? [];
}

describe("User documents", () => {
  it("normalize to the platform's fields and codes", () => {
    const [user] = usersIn("dev", {
      "users.yaml": userDoc({
        userName: "ANguyen",
        middleName: null,
        status: "locked",
        title: "Risk Manager",
        languageId: 3,
        forcePasswordChange: true,
        domain: "CORP",
        securityParameter: "General User Parameter",
      }),
    });
    expect(user).toMatchObject({
      kind: "User",
      key: "anguyen",
      userName: "ANguyen",
      securityParameter: "General User Parameter",
      source: { file: "manifests/users.yaml", line: 2, column: 11 },
    });
    expect(user?.fields).toEqual({
      FirstName: "Jane",
      LastName: "Doe",
      MiddleName: null,
      Title: "Risk Manager",
      LanguageId: 3,
      ForcePasswordChange: true,
      AccountStatus: 3,
      DomainId: 1,
    });
  });

  it("keep where initialPassword and securityParameter are written, for the plan's checks", () => {
    const text = [
      "kind: User",
      "userName: jdoe",
      "firstName: Jane",
      "lastName: Doe",
      "---",
      "kind: User",
      "userName: kmurphy",
      "firstName: Kieran",
      "lastName: Murphy",
      "securityParameter: Contractor Parameter",
      'initialPassword: "${EGP_DEMO_PASSWORD}"',
      "",
    ].join("\n");
    const [plain, placed] = usersIn("dev", { "users.yaml": text });
    expect(plain).not.toHaveProperty("fieldSources");
    expect(placed?.fieldSources).toEqual({
      initialPassword: {
        file: "manifests/users.yaml",
        line: 11,
        column: 18,
        path: "users[1].initialPassword",
      },
      securityParameter: {
        file: "manifests/users.yaml",
        line: 10,
        column: 20,
        path: "users[1].securityParameter",
      },
    });
  });

  it("manage roles, groups and contacts only when they are written", () => {
    const [user] = usersIn("dev", { "users.yaml": userDoc() });
    expect(user).not.toHaveProperty("roles");
    expect(user).not.toHaveProperty("groups");
    expect(user).not.toHaveProperty("contacts");
    expect(user?.fields).not.toHaveProperty("AccountStatus");
    const [none] = usersIn("dev", { "users.yaml": userDoc({ roles: [], groups: [], contacts: [] }) });
    expect(none).toMatchObject({ roles: [], groups: [], contacts: [] });
  });

  it("resolve role and group names through each environment's maps", () => {
    const manifests = {
      "users.yaml": userDoc({ roles: ["Risk Manager", "General User"], groups: ["Risk Owners", "Everyone"] }),
    };
    expect(usersIn("dev", manifests)[0]).toMatchObject({
      roles: [
        { name: "General User", id: 2 },
        { name: "Risk Manager", id: 3 },
      ],
      groups: [
        { name: "Everyone", id: 1 },
        { name: "Risk Owners", id: 3 },
      ],
    });
    expect(usersIn("prod", manifests)[0]).toMatchObject({
      roles: [
        { name: "General User", id: 2 },
        { name: "Risk Manager", id: 4 },
      ],
      groups: [
        { name: "Everyone", id: 1 },
        { name: "Risk Owners", id: 4 },
      ],
    });
  });

  it("report an unknown role, group or domain with its position and the environment file", () => {
    const text = [
      "kind: User",
      "userName: jdoe",
      "firstName: Jane",
      "lastName: Doe",
      "roles: [General User, risk manager, Approver]",
      "groups: [Nobody]",
      "domain: EXT",
    ].join("\n");
    expect(
      lines(errorsOf({ environments: { dev: TWO_ENVIRONMENTS.dev }, manifests: { "u.yaml": text } })),
    ).toEqual([
      'manifests/u.yaml:5:23 users[0].roles[1]: role "risk manager" is not in the roles of environments/dev.yaml; did you mean "Risk Manager"?',
      'manifests/u.yaml:5:37 users[0].roles[2]: role "Approver" is not in the roles of environments/dev.yaml (General User, Risk Manager, Auditor)',
      'manifests/u.yaml:6:10 users[0].groups[0]: group "Nobody" is not in the groups of environments/dev.yaml (Everyone, Risk Owners)',
      'manifests/u.yaml:7:9 users[0].domain: domain "EXT" is not in the domains of environments/dev.yaml (CORP)',
    ]);
  });

  it("resolve names by the maps' own keys: Object's built-in names are not roles, groups or domains", () => {
    const text = [
      "kind: User",
      "userName: jdoe",
      "firstName: Jane",
      "lastName: Doe",
      "roles: [General User, constructor, toString, __proto__]",
      "groups: [hasOwnProperty]",
      "domain: valueOf",
    ].join("\n");
    expect(
      lines(errorsOf({ environments: { dev: TWO_ENVIRONMENTS.dev }, manifests: { "u.yaml": text } })),
    ).toEqual([
      'manifests/u.yaml:5:23 users[0].roles[1]: role "constructor" is not in the roles of environments/dev.yaml (General User, Risk Manager, Auditor)',
      'manifests/u.yaml:5:36 users[0].roles[2]: role "toString" is not in the roles of environments/dev.yaml (General User, Risk Manager, Auditor)',
      'manifests/u.yaml:5:46 users[0].roles[3]: role "__proto__" is not in the roles of environments/dev.yaml (General User, Risk Manager, Auditor)',
      'manifests/u.yaml:6:10 users[0].groups[0]: group "hasOwnProperty" is not in the groups of environments/dev.yaml (Everyone, Risk Owners)',
      'manifests/u.yaml:7:9 users[0].domain: domain "valueOf" is not in the domains of environments/dev.yaml (CORP)',
    ]);
  });

  it("take a built-in name that an environment maps as a name like any other", () => {
    const [state] = statesOf({
      environments: { dev: "url: embedded:empty\nroles: { constructor: 5, toString: 6 }\n" },
      manifests: { "users.yaml": userDoc({ roles: ["constructor", "toString"] }) },
    });
    expect(state?.users[0]?.roles).toEqual([
      { name: "constructor", id: 5 },
      { name: "toString", id: 6 },
    ]);
  });

  it("map contact words to codes", () => {
    const [user] = usersIn("dev", {
      "users.yaml": userDoc({
        contacts: [
          { type: "email", subType: "business", value: "jane@example.com", default: true },
          { type: "phone", subType: "pager", value: "+1 555 0100" },
        ],
      }),
    });
    expect(user?.contacts).toEqual([
      { ContactType: 7, ContactSubType: 2, IsDefault: true, Value: "jane@example.com" },
      { ContactType: 9, ContactSubType: 14, IsDefault: false, Value: "+1 555 0100" },
    ]);
  });

  it("apply the seed's subtype rules: phone takes business2..pager, email not assistant, faxes or isdn", () => {
    const contact = (type: string, subType: string) => ({
      type,
      subType,
      value: type === "email" ? "a@b.c" : "1",
    });
    const errors = errorsOf({
      manifests: {
        "users.yaml": userDoc({
          contacts: [
            contact("phone", "assistant"),
            contact("phone", "business"),
            contact("phone", "business2"),
            contact("email", "isdn"),
            contact("email", "homeFax"),
            contact("email", "home"),
          ],
        }),
      },
    });
    expect(errors.map((e) => e.path)).toEqual([
      "users[0].contacts[0].subType",
      "users[0].contacts[1].subType",
      "users[0].contacts[3].subType",
      "users[0].contacts[4].subType",
    ]);
    expect(errors[0]?.message).toBe(
      "assistant is not a subtype of phone; expected one of business2, businessFax, home, home2, homeFax, isdn, mobile, mobile2, other, other2, otherFax, pager",
    );
    expect(errors[2]?.message).toMatch(
      /^isdn is not a subtype of email; expected one of business, business2, home,/,
    );
  });

  it("allow one default contact per type and check email addresses", () => {
    const errors = errorsOf({
      manifests: {
        "users.yaml": userDoc({
          contacts: [
            { type: "email", subType: "business", value: "a@example.com", default: true },
            { type: "phone", subType: "mobile", value: "1", default: true },
            { type: "email", subType: "home", value: "not-an-address", default: true },
          ],
        }),
      },
    });
    expect(errors.map((e) => `${e.path}: ${e.message}`)).toEqual([
      "users[0].contacts[2].value: expected an email address, name@domain",
      "users[0].contacts[2].default: a second default email (also contacts[0])",
    ]);
  });

  it("report a type error with file, line and column", () => {
    const text = ["kind: User", "userName: jdoe", "firstName: Jane", "lastName: Doe", "status: enabled"].join(
      "\n",
    );
    expect(lines(errorsOf({ manifests: { "users.yaml": text } }))).toEqual([
      "manifests/users.yaml:5:9 users[0].status: expected one of active, inactive, locked",
    ]);
  });

  it("report unknown keys and missing required fields", () => {
    const text = ["kind: User", "userName: jdoe", "firstName: Jane", "email: jane@example.com"].join("\n");
    expect(lines(errorsOf({ manifests: { "users.yaml": text } }))).toEqual([
      "manifests/users.yaml:1:1 users[0].lastName: is required",
      'manifests/users.yaml:4:1 users[0].email: unknown key "email" (User jdoe)',
    ]);
  });

  it("refuse two users with the same userName, case-insensitively, naming both positions", () => {
    const errors = errorsOf({
      manifests: { "a.yaml": userDoc({ userName: "jdoe" }), "b.yaml": [userDoc({ userName: "JDoe" })] },
    });
    expect(lines(errors)).toEqual([
      'manifests/b.yaml:2:11 users[0].userName: User "JDoe" is also defined at manifests/a.yaml:2:11',
    ]);
  });

  it("keep initialPassword as a secret, never printed", () => {
    const [user] = usersIn("dev", { "users.yaml": userDoc({ initialPassword: "${EGP_DEMO_PASSWORD}" }) });
    expect(user?.initialPassword?.reveal()).toBe(VARIABLES.EGP_DEMO_PASSWORD);
    expect(JSON.stringify(user)).not.toContain(VARIABLES.EGP_DEMO_PASSWORD);
    expect(inspect(user, { depth: 10 })).not.toContain(VARIABLES.EGP_DEMO_PASSWORD);
  });

  it("warn about an initialPassword written in the file, without printing it", () => {
    const result = validate({ manifests: { "users.yaml": userDoc({ initialPassword: "Plain#Text1" }) } });
    expect(result.ok).toBe(true);
    expect(lines(result.warnings)).toEqual([
      "warning: manifests/users.yaml:5:18 users[0].initialPassword: is written in the file; use ${VAR} so that it stays out of git",
    ]);
  });

  it("never quote a value that came from a variable", () => {
    const result = validate(
      { manifests: { "users.yaml": userDoc({ roles: ["${ROLE_NAME}"] }) } },
      { variables: { ROLE_NAME: "Sensitive Role" } },
    );
    expect(result.ok).toBe(false);
    const text = lines(result.ok ? [] : result.errors).join("\n");
    expect(text).toContain("role (a value from ${…}) is not in the roles of environments/dev.yaml");
    expect(text).not.toContain("Sensitive Role");
  });

  it("warn about a security parameter that no manifest defines and that is not a platform one", () => {
    const result = validate({
      manifests: {
        "params.yaml": parameterDoc({ name: "Contractor Parameter" }),
        "users.yaml": [
          userDoc({ userName: "a", securityParameter: "contractor parameter" }),
          userDoc({ userName: "b", securityParameter: "Services Parameter" }),
          userDoc({ userName: "c", securityParameter: "Vendor Parameter" }),
        ],
      },
    });
    expect(result.ok).toBe(true);
    expect(lines(result.warnings)).toEqual([
      expect.stringMatching(
        /^warning: manifests\/users\.yaml:\d+:\d+ users\[2\]\.securityParameter: no manifest for environment dev defines "Vendor Parameter"; the instance must already have it$/,
      ),
    ]);
  });

  it("refuse to deactivate or lock the account egp logs in as", () => {
    const errors = errorsOf({
      environments: { prod: realEnvironmentDoc() },
      manifests: { "users.yaml": userDoc({ userName: "SVC_GitOps", status: "inactive" }) },
    });
    expect(errors.map((e) => `${e.path}: ${e.message}`)).toEqual([
      "users[0].status: this is the account egp logs in as to prod; it must stay active",
    ]);
  });
});

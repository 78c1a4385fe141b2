// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { describe, expect, it } from "vitest";
import { live, liveParameter, liveUser } from "../../test/builders/plan.ts";
import { type DesiredState, type Repository, validateRepository } from "../manifest/index.ts";
import { planChanges } from "../plan/index.ts";
import type { LiveState } from "../state/index.ts";
import { exportManifests } from "./index.ts";
import { securityParameterDocument, timeOfDay } from "./kinds/security-parameter.ts";

/*
 * Export is pure once the live state is read: these tests feed it live states built in memory,
 * then load what it wrote with the real manifest loader and plan against the same live state.
 */

const ENVIRONMENT = [
  "url: https://grc.example.com",
  "instance: Production",
  "auth: { username: svc_gitops, password: '${P}' }",
  "groups: { Everyone: 1, Administrators: 2, Risk Owners: 42 }",
  "domains: { CORP: 7 }",
  "",
].join("\n");

function repository(manifests: Repository["manifests"] = []): Repository {
  return { dir: "/repo", environments: [{ path: "environments/prod.yaml", text: ENVIRONMENT }], manifests };
}

function load(manifests: Repository["manifests"] = []): DesiredState {
  const result = validateRepository(repository(manifests), { variables: { P: "pw" } });
  if (!result.ok)
    throw new Error(result.errors.map((e) => `${e.file}:${e.line} ${e.path}: ${e.message}`).join("\n"));
  const [state] = result.states;
  if (!state) throw new Error("no state");
  return state;
}

/** Exports `state`, loads the result, and plans it against the same state. */
function roundTrip(state: LiveState) {
  const environment = load().environment;
  // The account egp logs in with is left out by default; these round trips keep every user.
  const exported = exportManifests({ environment, live: state, includeLoginUser: true });
  const desired = load(exported.files.map((f) => ({ path: `manifests/exported/${f.file}`, text: f.text })));
  const plan = planChanges(desired, state, { createdAt: "2026-01-01T00:00:00Z" });
  return { exported, desired, plan };
}

describe("exportManifests", () => {
  it("leaves out the account egp logs in with, unless asked, and says which", () => {
    const { environment } = load();
    const state = live({ users: [liveUser(1, environment.auth.username), liveUser(2, "dpatel")] });
    const [, users] = exportManifests({ environment, live: state }).files;
    expect(users?.documents.map((d) => d.userName)).toEqual(["dpatel"]);
    expect(users?.leftOut).toEqual([environment.auth.username]);
    const [, all] = exportManifests({ environment, live: state, includeLoginUser: true }).files;
    expect(all?.documents.map((d) => d.userName)).toEqual([environment.auth.username, "dpatel"].sort());
  });

  it("writes what a following plan finds unchanged", () => {
    const state = live({
      securityParameters: [
        liveParameter(2, "General User Parameter", { Default: true, Description: "Everyday users." }),
        liveParameter(5, "Night Shift", {
          IsLimitByTimeFrame: true,
          PermittedFromTime: "2026-01-01T22:00:00",
          PermittedToTime: "2026-01-02T06:30:00Z",
          LockoutPeriodType: 1,
          SessionTimeoutType: 3,
          StaticSessionTimeout: 12,
          IsDisallowedByDays: true,
          DisallowedSessionDays: [64, 1],
          IsDisallowedByDates: true,
          DisallowedDates: [{ LockedDate: "2026-12-31T00:00:00Z" }, { LockedDate: "2026-12-24" }],
        }),
      ],
      users: [
        liveUser(
          1,
          "svc_gitops",
          { FirstName: "Service", LastName: "Account", SecurityId: 5, DomainId: 7 },
          { groups: [1, 2] },
        ),
        liveUser(
          9,
          "jdoe",
          {
            Title: "Costs ${BUDGET} — 100%",
            Department: "",
            MiddleName: "Q",
            AccountStatus: 3,
            LanguageId: null,
          },
          {
            groups: [42],
            contacts: [
              { Id: 3, ContactType: 9, ContactSubType: 14, IsDefault: false, Value: "+1 555 0199" },
              { Id: 4, ContactType: 7, ContactSubType: 2, IsDefault: true, Value: "jdoe@example.com" },
            ],
          },
        ),
      ],
      groupsRead: [1, 2, 42],
    });
    const { exported, desired, plan } = roundTrip(state);
    expect(exported.warnings).toEqual([]);
    expect(plan.changes).toEqual([]);
    expect(desired.users.find((u) => u.key === "jdoe")).toMatchObject({
      fields: { Title: "Costs ${BUDGET} — 100%", MiddleName: "Q", AccountStatus: 3 },
      groups: [{ name: "Risk Owners", id: 42 }],
      contacts: [
        { ContactType: 9, ContactSubType: 14, IsDefault: false, Value: "+1 555 0199" },
        { ContactType: 7, ContactSubType: 2, IsDefault: true, Value: "jdoe@example.com" },
      ],
    });
    expect(desired.users.find((u) => u.key === "svc_gitops")).toMatchObject({
      securityParameter: "Night Shift",
      fields: { DomainId: 7 },
    });
    // Blank and null fields are left out; roles and passwords are never written.
    const jdoe = desired.users.find((u) => u.key === "jdoe");
    expect(jdoe?.fields).not.toHaveProperty("Department");
    expect(jdoe?.fields).not.toHaveProperty("LanguageId");
    expect(jdoe).not.toHaveProperty("roles");
    expect(jdoe).not.toHaveProperty("initialPassword");
  });

  it("writes the YAML of the example manifests: flow lists, scoped to the environment", () => {
    const state = live({ users: [liveUser(1, "jdoe", {}, { groups: [1] })] });
    const [, users] = exportManifests({
      environment: load().environment,
      live: state,
      includeLoginUser: true,
    }).files;
    expect(users?.text.split("\n").filter((line) => !line.startsWith("#"))).toEqual([
      "kind: User",
      "environments: [prod]",
      "userName: jdoe",
      "firstName: Jane",
      "lastName: Doe",
      "status: active",
      "securityParameter: General User Parameter",
      "timeZoneId: UTC",
      "languageId: 1",
      "forcePasswordChange: false",
      "groups: [Everyone]",
      "contacts: []",
      "",
    ]);
  });

  it("leaves out, with a warning, what a manifest can't hold, and the plan still finds no change", () => {
    const state = live({
      securityParameters: [
        liveParameter(2, "General User Parameter", {
          Default: true,
          // The flag says no days, the list names one: one field in a manifest can't say both.
          DisallowedSessionDays: [2],
          IsDisallowedByDates: true,
          DisallowedDates: [{ LockedDate: "2026-12-24T12:00:00" }],
          GraceLogins: -1,
          LockoutPeriodType: 9,
        }),
      ],
      users: [
        liveUser(
          1,
          "svc_gitops",
          { SecurityId: 77, DomainId: 3 },
          {
            groups: [1],
            contacts: [
              { ContactType: 7, ContactSubType: 2, IsDefault: true, Value: "a@example.com" },
              { ContactType: 7, ContactSubType: 11, IsDefault: true, Value: "b@example.com" },
            ],
          },
        ),
        liveUser(2, "nameless", { FirstName: "" }),
      ],
    });
    const { exported, plan } = roundTrip(state);
    expect(exported.warnings).toEqual([
      'SecurityParameter "General User Parameter": lockoutPeriod left out (unit code 9 is not hours, minutes or days)',
      'SecurityParameter "General User Parameter": disallowedDays left out (the flag and the days disagree)',
      'SecurityParameter "General User Parameter": disallowedDates left out (a date has a time of day)',
      `SecurityParameter "General User Parameter": graceLogins left out (its live value can't be written as a manifest)`,
      `User "nameless": not exported (firstName can't be written as a manifest)`,
      `User "svc_gitops": securityParameter left out (id 77 is not a live security parameter)`,
      `User "svc_gitops": domain left out (id 3 is not in the environment's domains map)`,
      'User "svc_gitops": contacts left out (two default contacts of one type)',
    ]);
    expect(exported.files.map((f) => f.count)).toEqual([1, 1]);
    // The unexported user is unmanaged, not a change.
    expect(plan.changes).toEqual([]);
    expect(plan.unmanaged).toEqual([{ kind: "User", key: "nameless" }]);
  });

  it("omits groups when the environment maps none, as their membership was not read", () => {
    const state = live({ users: [liveUser(1, "jdoe")], groupsRead: [] });
    const [, users] = exportManifests({
      environment: load().environment,
      live: state,
      includeLoginUser: true,
    }).files;
    expect(users?.text).not.toContain("groups:");
  });
});

describe("security parameter fields", () => {
  it("gives times of day as HH:MM, with seconds only when there are some", () => {
    expect(timeOfDay("2026-01-01T07:05:00")).toBe("07:05");
    expect(timeOfDay("2026-01-01T7:05:09Z")).toBe("07:05:09");
    expect(timeOfDay("19:00")).toBe("19:00");
    expect(timeOfDay(null)).toBeUndefined();
  });

  it("writes null lists with their flag off as nothing at all", () => {
    const { doc, warnings } = securityParameterDocument(
      liveParameter(1, "P", { DisallowedSessionDays: null, DisallowedDates: null }),
      "prod",
    );
    expect(warnings).toEqual([]);
    expect(doc).not.toHaveProperty("disallowedDays");
    expect(doc).not.toHaveProperty("disallowedDates");
  });
});

describe("an export into a folder with an earlier export", () => {
  const file = [
    "kind: User\nenvironments: [prod]\nuserName: bdoe\ntitle: Editor\n",
    "kind: User\nenvironments: [prod]\nuserName: adoe\n",
    "kind: User\nenvironments: [prod]\nuserName: gone\n",
  ].join("---\n");
  const fresh = [
    { kind: "User", environments: ["prod"], userName: "adoe" },
    { kind: "User", environments: ["prod"], userName: "bdoe", title: "Chief Editor" },
    { kind: "User", environments: ["prod"], userName: "cdoe" },
  ];

  it("says what it would overwrite or remove, and keeps the documents sorted by name", async () => {
    const { mergeExported } = await import("./merge.ts");
    const merged = mergeExported({
      file: "users.yaml",
      text: file,
      kind: "User",
      key: "userName",
      environment: "prod",
      documents: fresh,
    });
    expect(merged.overwrites).toEqual(["User bdoe: title", "User gone: not on the instance, removed"]);
    expect(merged.documents.map((d) => d.userName)).toEqual(["adoe", "bdoe", "cdoe"]);
  });
});

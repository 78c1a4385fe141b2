import { describe, expect, it } from "vitest";
import {
  CREATED_AT,
  desired,
  desiredPackage,
  desiredParameter,
  desiredUser,
  environment,
  live,
  liveParameter,
  liveUser,
  packageObject,
} from "../../test/builders/plan.ts";
import {
  type DesiredContact,
  type InstallChoice,
  type NamedId,
  NO_PRUNING,
  Secret,
} from "../manifest/index.ts";
import type { Contact } from "../wire/index.ts";
import { PlanError } from "./kinds/kind.ts";
import { planChanges } from "./plan-changes.ts";

const plan = (d = desired(), l = live(), options = {}) =>
  planChanges(d, l, { createdAt: CREATED_AT, ...options });

describe("planChanges: users", () => {
  it("creates a missing user with every managed field and a sensitive password", () => {
    const result = plan(
      desired({
        users: [
          desiredUser("JDoe", {
            fields: { FirstName: "Jane", LastName: "Doe", Title: "Analyst" },
            roles: [{ name: "Risk Manager", id: 17 }],
            initialPassword: new Secret("Init#Pass99"),
          }),
        ],
      }),
    );
    expect(result.changes).toHaveLength(1);
    const [change] = result.changes;
    expect(change?.action).toBe("create");
    expect(change?.fields.map((f) => f.field)).toEqual([
      "FirstName",
      "LastName",
      "Title",
      "Roles",
      "Password",
    ]);
    expect(JSON.stringify(result)).not.toContain("Init#Pass99");
    expect(result.steps.map((s) => s.op)).toEqual(["user.create"]);
    expect(result.steps[0]?.input.passwordFrom).toBe("manifest");
    expect(result.summary).toMatchObject({ add: 1, change: 0, destroy: 0, drift: 1 });
  });

  it("matches user names case-insensitively and plans nothing when managed fields agree", () => {
    const result = plan(
      desired({
        users: [desiredUser("JDOE", { fields: { FirstName: "Jane", LastName: "Doe", Title: "" } })],
      }),
      live({ users: [liveUser(7, "jdoe", { Title: null })] }),
    );
    expect(result.changes).toEqual([]);
    expect(result.steps).toEqual([]);
  });

  it("compares only managed fields", () => {
    const result = plan(
      desired({ users: [desiredUser("jdoe", { fields: { FirstName: "Jane", LastName: "Doe" } })] }),
      live({ users: [liveUser(7, "jdoe", { Title: "Something the manifest does not manage" })] }),
    );
    expect(result.changes).toEqual([]);
  });

  it("updates changed fields and shows before and after", () => {
    const result = plan(
      desired({
        users: [desiredUser("jdoe", { fields: { FirstName: "Jane", LastName: "Doe", Department: "Risk" } })],
      }),
      live({ users: [liveUser(7, "jdoe", { Department: "Audit" })] }),
    );
    expect(result.changes[0]?.fields).toEqual([
      { field: "Department", before: "Audit", after: "Risk", verifiable: true },
    ]);
    expect(result.steps[0]).toMatchObject({ op: "user.update", input: { id: 7 } });
  });

  it("uses activate and deactivate for status, and an update for locked", () => {
    const deactivate = plan(
      desired({
        users: [desiredUser("jdoe", { fields: { FirstName: "Jane", LastName: "Doe", AccountStatus: 2 } })],
      }),
      live({ users: [liveUser(7, "jdoe")] }),
    );
    expect(deactivate.steps.map((s) => s.op)).toEqual(["user.deactivate"]);
    const lock = plan(
      desired({
        users: [desiredUser("jdoe", { fields: { FirstName: "Jane", LastName: "Doe", AccountStatus: 3 } })],
      }),
      live({ users: [liveUser(7, "jdoe")] }),
    );
    expect(lock.steps.map((s) => s.op)).toEqual(["user.update"]);
  });

  it("does not count roles as drift, and enforces them only when asked", () => {
    const d = desired({ users: [desiredUser("jdoe", { roles: [{ name: "Risk Manager", id: 17 }] })] });
    const l = live({ users: [liveUser(7, "jdoe")] });
    expect(plan(d, l).changes).toEqual([]);
    const enforced = plan(d, l, { enforceRoles: true });
    expect(enforced.changes[0]?.fields).toEqual([
      { field: "Roles", after: ["Risk Manager"], verifiable: false },
    ]);
    expect(enforced.summary.drift).toBe(0);
  });

  it("compares contacts as a set and groups among the groups read", () => {
    const contact = { ContactType: 7, ContactSubType: 2, IsDefault: true, Value: "jane@example.com" };
    const phone = { ContactType: 9, ContactSubType: 9, IsDefault: false, Value: "+1 555 0100" };
    const d = desired({
      users: [desiredUser("jdoe", { contacts: [contact, phone], groups: [{ name: "Risk Owners", id: 42 }] })],
    });
    const same = live({
      users: [
        liveUser(
          7,
          "jdoe",
          {},
          {
            contacts: [
              { Id: 5, ...phone },
              { Id: 4, ...contact },
            ],
            groups: [42, 99],
          },
        ),
      ],
    });
    expect(plan(d, same).changes).toEqual([]);
    const differs = live({
      users: [liveUser(7, "jdoe", {}, { contacts: [{ Id: 4, ...contact }], groups: [1] })],
    });
    expect(plan(d, differs).changes[0]?.fields.map((f) => f.field)).toEqual(["Contacts", "Groups"]);
  });

  it("compares one contact and one group on either side as the full comparison does", () => {
    const email = { ContactType: 7, ContactSubType: 2, IsDefault: true, Value: "jane@example.com" };
    const user = (contacts: DesiredContact[], groups: NamedId[]) =>
      desired({ users: [desiredUser("jdoe", { contacts, groups })] });
    const current = (contacts: Contact[], groups: number[]) =>
      live({ users: [liveUser(7, "jdoe", {}, { contacts, groups })] });
    const fieldsOf = (d: ReturnType<typeof desired>, l: ReturnType<typeof live>) =>
      plan(d, l).changes.flatMap((change) => change.fields.map((f) => [f.field, f.before, f.after]));
    const owners = { name: "Risk Owners", id: 42 };
    // Unchanged; a group that was not read is not compared.
    expect(fieldsOf(user([email], [owners]), current([{ Id: 4, ...email }], [42]))).toEqual([]);
    expect(fieldsOf(user([], []), current([], [7]))).toEqual([]);
    // Changed: each part of the one contact, and the one group, with before and after as shown.
    const shown = (c: typeof email) => ({
      ContactType: c.ContactType,
      ContactSubType: c.ContactSubType,
      IsDefault: c.IsDefault,
      Value: c.Value,
    });
    for (const other of [
      { ...email, Value: "Jane@example.com" },
      { ...email, IsDefault: false },
      { ...email, ContactSubType: 5 },
      { ...email, ContactType: 9, ContactSubType: 9 },
    ]) {
      expect(fieldsOf(user([email], []), current([{ Id: 4, ...other }], []))).toEqual([
        ["Contacts", [shown(other)], [shown(email)]],
      ]);
    }
    expect(fieldsOf(user([], [owners]), current([{ Id: 4, ...email }], [1]))).toEqual([
      ["Contacts", [shown(email)], []],
      ["Groups", ["Everyone"], ["Risk Owners"]],
    ]);
    expect(fieldsOf(user([email], []), current([], [42]))).toEqual([
      ["Contacts", [], [shown(email)]],
      ["Groups", ["Risk Owners"], []],
    ]);
  });

  it("resolves the security parameter by name and waits for it when the plan creates it", () => {
    const result = plan(
      desired({
        securityParameters: [desiredParameter("Contractor Parameter", { MinPasswordLength: 14 })],
        users: [desiredUser("jdoe", { securityParameter: "Contractor Parameter" })],
      }),
    );
    expect(result.steps.map((s) => s.id)).toEqual([
      "SecurityParameter/Contractor Parameter#create",
      "User/jdoe#create",
    ]);
    expect(result.steps[1]?.dependsOn).toEqual(["SecurityParameter/Contractor Parameter#create"]);
  });

  it("leaves unmanaged users alone by default and never prunes its own login", () => {
    const l = live({ users: [liveUser(1, "svc_gitops"), liveUser(8, "old.user")] });
    const ignore = plan(desired(), l);
    expect(ignore.changes).toEqual([]);
    expect(ignore.unmanaged.filter((u) => u.kind === "User").map((u) => u.key)).toEqual([
      "svc_gitops",
      "old.user",
    ]);
    const pruned = plan(desired({ prune: { ...NO_PRUNING, users: "deactivate" } }), l);
    expect(pruned.changes.map((c) => [c.key, c.action, c.destructive])).toEqual([
      ["old.user", "deactivate", true],
    ]);
    // --allow-delete prunes every kind, like auth0-deploy-cli's AUTH0_ALLOW_DELETE.
    const deleted = plan(desired(), l, { allowDelete: true });
    expect(deleted.steps.filter((s) => s.op.startsWith("user.")).map((s) => s.id)).toEqual([
      "User/old.user#delete",
    ]);
  });
});

describe("planChanges: users the prune policy reaches", () => {
  it("are the live users whose names, in any case, no manifest gives", () => {
    const l = live({
      users: [liveUser(1, "svc_gitops"), liveUser(5, "JDoe"), liveUser(6, "jdoe"), liveUser(8, "old.user")],
    });
    const d = desired({ users: [desiredUser("jDOE")], prune: { ...NO_PRUNING, users: "deactivate" } });
    const pruned = plan(d, l).changes.filter((c) => c.action === "deactivate");
    expect(pruned.map((c) => c.key)).toEqual(["old.user"]);
    const deleted = plan(d, l, { allowDelete: true }).changes.filter(
      (c) => c.kind === "User" && c.action === "delete",
    );
    expect(deleted.map((c) => c.key)).toEqual(["old.user"]);
  });
});

describe("planChanges: security parameters", () => {
  it("creates, updates only differing fields, and compares days as sorted sets", () => {
    const result = plan(
      desired({
        securityParameters: [
          desiredParameter("General User Parameter", {
            MinPasswordLength: 12,
            DisallowedSessionDays: [1, 64],
          }),
          desiredParameter("New Parameter", { SessionTimeout: 10 }),
        ],
      }),
      live({
        securityParameters: [
          liveParameter(2, "general user parameter", {
            Default: true,
            MinPasswordLength: 8,
            DisallowedSessionDays: [1, 64],
          }),
        ],
      }),
    );
    expect(result.changes.map((c) => [c.key, c.action])).toEqual([
      ["General User Parameter", "update"],
      ["New Parameter", "create"],
    ]);
    expect(result.changes[0]?.fields).toEqual([
      { field: "MinPasswordLength", before: 8, after: 12, verifiable: true },
    ]);
  });

  it("never deletes a parameter that is default or in use", () => {
    const result = plan(
      desired({ prune: { ...NO_PRUNING, securityParameters: "delete" } }),
      live({
        securityParameters: [
          liveParameter(2, "Default One", { Default: true }),
          liveParameter(5, "Used"),
          liveParameter(6, "Unused"),
        ],
        users: [liveUser(1, "svc_gitops", { SecurityId: 5 })],
      }),
    );
    expect(result.changes.map((c) => [c.key, c.action])).toEqual([["Unused", "delete"]]);
    expect(result.unmanaged.filter((u) => u.kind === "SecurityParameter").map((u) => u.key)).toEqual([
      "Default One",
      "Used",
    ]);
  });

  it("orders deletes after every other step", () => {
    const result = plan(
      desired({
        prune: { ...NO_PRUNING, securityParameters: "delete" },
        users: [desiredUser("new.user")],
      }),
      live({
        securityParameters: [liveParameter(2, "Default", { Default: true }), liveParameter(6, "Unused")],
      }),
    );
    expect(result.steps.map((s) => s.op)).toEqual(["user.create", "securityParameter.delete"]);
    expect(result.steps[1]?.dependsOn).toEqual(["User/new.user#create"]);
  });
});

describe("planChanges: packages", () => {
  const prod = environment("prod", { packagesFrom: "dev" });
  const dev = environment("dev");
  const source = {
    environment: "dev",
    applicationsByName: { "risk register": "g-1", findings: "g-2" },
    objects: {
      "g-1": packageObject("g-1", "Risk Register", "fp-1", { a: "1", b: "2" }),
      "g-2": packageObject("g-2", "Findings", "fp-2", { c: "3" }),
    },
  };

  it("promotes when an object is missing or differs: the source's chain, a snapshot of the target's, then the install", () => {
    const result = plan(
      desired({
        environment: prod,
        packagesFrom: dev,
        packages: [desiredPackage("Release 1", ["Risk Register", "Findings"])],
      }),
      live({
        packages: {
          applicationsByName: {},
          objects: { "g-1": packageObject("g-1", "Risk Register", "old", { a: "1", b: "9" }) },
        },
        packageSource: source,
      }),
    );
    expect(result.changes[0]?.action).toBe("promote");
    expect(result.changes[0]?.fields.map((f) => f.field)).toEqual([
      "Application Risk Register",
      "Application Findings",
    ]);
    expect(result.steps.map((s) => `${s.op}@${s.environment}`)).toEqual([
      "package.create@dev",
      "package.generate@dev",
      "package.download@dev",
      "package.snapshot@prod",
      "package.snapshot-generate@prod",
      "package.snapshot-download@prod",
      "package.upload@prod",
      "package.install@prod",
      "package.verify@prod",
    ]);
    const step = (verb: string) => result.steps.find((s) => s.id === `Package/Release 1#${verb}`);
    // Only what the target has goes in the snapshot, as the plan read it; the rest is new there.
    expect(step("snapshot")?.input).toEqual({
      name: "Release 1 (egp snapshot)",
      objects: [{ guid: "g-1", type: "Application", name: "Risk Register", fingerprint: "old" }],
    });
    expect(step("snapshot")?.dependsOn).toEqual([]);
    expect(step("upload")?.dependsOn).toEqual([
      "Package/Release 1#download",
      "Package/Release 1#snapshot-download",
    ]);
    expect(step("install")?.input.release).toEqual({
      from: "dev",
      created: [{ guid: "g-2", type: "Application", name: "Findings" }],
    });
    expect(result.changes[0]?.notes).toContain(
      "snapshot first: Risk Register as prod has them (undo with egp rollback)",
    );
    expect(result.sourceEnvironment).toBe("dev");
    expect(result.summary.promote).toBe(1);
  });

  it("takes no snapshot when the document turns it off, or when nothing exists on the target yet", () => {
    const target = {
      applicationsByName: {},
      objects: { "g-1": packageObject("g-1", "Risk Register", "old", { a: "1", b: "9" }) },
    };
    const off = plan(
      desired({
        environment: prod,
        packagesFrom: dev,
        packages: [desiredPackage("Release 1", ["Risk Register"], { snapshot: false })],
      }),
      live({ packages: target, packageSource: source }),
    );
    expect(off.steps.map((s) => s.op)).not.toContain("package.snapshot");
    expect(off.steps.find((s) => s.op === "package.upload")?.dependsOn).toEqual([
      "Package/Release 1#download",
    ]);
    expect(off.changes[0]?.notes).toContain(
      "no snapshot (install: { snapshot: false }): egp rollback can't undo this install",
    );
    const fresh = plan(
      desired({
        environment: prod,
        packagesFrom: dev,
        packages: [desiredPackage("Release 1", ["Findings"])],
      }),
      live({ packages: { applicationsByName: {}, objects: {} }, packageSource: source }),
    );
    expect(fresh.steps).toHaveLength(6);
    expect(fresh.changes[0]?.notes).toContain("no snapshot: none of the objects exists on prod yet");
  });

  it("plans nothing when every fingerprint matches", () => {
    const result = plan(
      desired({
        environment: prod,
        packagesFrom: dev,
        packages: [desiredPackage("Release 1", ["Risk Register"])],
      }),
      live({
        packages: { applicationsByName: {}, objects: { "g-1": source.objects["g-1"] } },
        packageSource: source,
      }),
    );
    expect(result.changes).toEqual([]);
  });

  /** A package of one application whose install the target codes as `install` says. */
  const coded = (name: string, application: string, install: Partial<InstallChoice>) => {
    const pkg = desiredPackage(name, [application]);
    return { ...pkg, objects: pkg.objects.map((o) => ({ ...o, install: { ...o.install, ...install } })) };
  };
  const createNew = {
    field: "InstallMethod",
    word: "createNew",
    code: 1,
    key: "installCodes.installMethod.createNew",
  };

  it("notes assumed install codes once, on the first promotion that sends one, naming the key to set", () => {
    const result = plan(
      desired({
        environment: prod,
        packagesFrom: dev,
        packages: [
          desiredPackage("Release 0", ["Findings"]),
          coded("Release 1", "Risk Register", {
            method: "createNew",
            InstallMethod: 1,
            assumed: [createNew],
          }),
          coded("Release 2", "Findings", { method: "createNew", InstallMethod: 1, assumed: [createNew] }),
        ],
      }),
      live({ packages: { applicationsByName: {}, objects: {} }, packageSource: source }),
    );
    const noted = result.changes.map((c) => c.notes.filter((n) => n.startsWith("assumed install codes")));
    expect(noted).toEqual([
      [],
      [
        "assumed install codes: InstallMethod 1 for createNew (the interface description does not give their meaning); set installCodes.installMethod.createNew in environments/prod.yaml if this instance codes them otherwise",
      ],
      [],
    ]);
  });

  it("sends the environment's codes in the install step, and compares by the words' meaning", () => {
    const target = {
      applicationsByName: {},
      objects: { "g-1": packageObject("g-1", "Risk Register", "old", { a: "1", b: "9" }) },
    };
    const ownCodes = { InstallMethod: 7, InstallOption: 8, TranslationOption: 9, assumed: [] };
    const update = plan(
      desired({
        environment: prod,
        packagesFrom: dev,
        packages: [coded("Release 1", "Risk Register", ownCodes)],
      }),
      live({ packages: target, packageSource: source }),
    );
    expect(update.changes[0]?.notes.filter((n) => n.startsWith("assumed install codes"))).toEqual([]);
    expect(update.steps.find((s) => s.op === "package.install")?.input.objects).toEqual([
      {
        guid: "g-1",
        type: "Application",
        name: "Risk Register",
        installMethod: 7,
        installOption: 8,
        translationOption: 9,
      },
    ]);
    // createNew leaves an existing object's parts as they are, whatever code it is sent as.
    const createOnly = plan(
      desired({
        environment: prod,
        packagesFrom: dev,
        packages: [coded("Release 1", "Risk Register", { ...ownCodes, method: "createNew" })],
      }),
      live({ packages: target, packageSource: source }),
    );
    expect(createOnly.changes).toEqual([]);
  });

  it("refuses an application the source does not have, naming where it is declared", () => {
    expect(() =>
      plan(
        desired({ environment: prod, packagesFrom: dev, packages: [desiredPackage("Release 1", ["Nope"])] }),
        live({ packageSource: source }),
      ),
    ).toThrow(PlanError);
    expect(() =>
      plan(
        desired({ environment: prod, packagesFrom: dev, packages: [desiredPackage("Release 1", ["Nope"])] }),
        live({ packageSource: source }),
      ),
    ).toThrow(/manifests\/test\.yaml:3:1 package "Release 1": application "Nope" does not exist on dev/);
  });
});

describe("planChanges: identity", () => {
  it("is deterministic and its id follows the digests", () => {
    const d = desired({ users: [desiredUser("jdoe")] });
    expect(plan(d, live())).toEqual(plan(d, live()));
    expect(plan(d, live()).id).not.toBe(plan(d, live({ digest: "other" })).id);
  });
});

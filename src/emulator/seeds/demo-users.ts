import type { Contact, Task, User } from "../../wire/index.ts";
import type { Store } from "../store.ts";
import { FIXED, seedUser } from "./fixed.ts";

/*
 * Users, roles, groups, contacts and tasks of the demo seeds. Dev and prod share most users by
 * UserName, with some differences (Title, Department, status), so that plans have drift to show.
 * Extra roles and groups are created in a different order on each, so that their ids differ
 * between the two instances, as they do between real ones.
 */

export const DEMO_PASSWORD = "Welcome#2026";
/** Services Parameter asks for 16 characters. */
export const DEMO_SERVICE_PASSWORD = "GitOps#Service2026";

type Variant = "dev" | "prod";

interface DemoUser {
  fields: Partial<User> & { FirstName: string; LastName: string; UserName: string };
  roles: string[];
  groups: string[];
  /** [type, subtype, value, isDefault]: 7 e-mail, 9 phone. */
  contacts: Array<[7 | 9, number, string, boolean]>;
  password?: string;
}

const email = (userName: string): [7, number, string, boolean] => [7, 2, `${userName}@example.com`, true];

function demoUsers(variant: Variant): DemoUser[] {
  const dev = variant === "dev";
  const users: Array<DemoUser | false> = [
    {
      fields: {
        FirstName: "Alice",
        LastName: "Nguyen",
        UserName: "anguyen",
        Title: dev ? "Risk Manager" : "Senior Risk Manager",
        Department: "Enterprise Risk",
        Company: "Example Corp",
      },
      roles: ["General User", "Risk Manager"],
      groups: ["Everyone", "Risk Owners"],
      contacts: [email("anguyen"), [9, 9, "+1 555 0100", true], [9, 3, "+1 555 0101", false]],
    },
    dev && {
      fields: { FirstName: "Bob", LastName: "Okafor", UserName: "bokafor", Title: "Control Owner" },
      roles: ["General User"],
      groups: ["Everyone", "Risk Owners"],
      contacts: [email("bokafor")],
    },
    {
      fields: {
        FirstName: "Carla",
        LastName: "Mendes",
        UserName: "cmendes",
        Title: "Internal Auditor",
        Department: dev ? "Internal Audit" : "Audit",
        Locale: "pt-BR",
      },
      roles: ["General User", "Auditor"],
      groups: ["Everyone", "Auditors"],
      contacts: [email("cmendes"), [9, 5, "+351 21 555 0102", true]],
    },
    {
      fields: {
        FirstName: "Dev",
        LastName: "Patel",
        UserName: "dpatel",
        Title: "Compliance Analyst",
        Department: "Compliance",
        AccountStatus: dev ? 1 : 2,
      },
      roles: ["General User"],
      groups: ["Everyone"],
      contacts: [email("dpatel"), [7, 11, "dev.patel@example.org", false]],
    },
    {
      fields: {
        FirstName: "Erik",
        MiddleName: "Lars",
        LastName: "Johansson",
        UserName: "ejohansson",
        Title: "IT Security Lead",
        Department: "Information Security",
        TimeZoneId: "Europe/Stockholm",
      },
      roles: ["General User", "Risk Manager"],
      groups: ["Everyone", "Risk Owners", "Auditors"],
      contacts: [email("ejohansson"), [9, 9, "+46 8 555 0103", true], [9, 14, "+46 8 555 0104", false]],
    },
    dev && {
      fields: {
        FirstName: "Fiona",
        LastName: "Kim",
        UserName: "fkim",
        Title: "Business Continuity Manager",
        Department: "Operations",
        AccountStatus: 2,
      },
      roles: ["General User"],
      groups: ["Everyone"],
      contacts: [email("fkim")],
    },
    dev && {
      fields: {
        FirstName: "Gabriel",
        LastName: "Morales",
        UserName: "gmorales",
        Title: "Vendor Risk Analyst",
        Department: "Third-Party Risk",
        ForcePasswordChange: true,
      },
      roles: ["General User"],
      groups: ["Everyone", "Risk Owners"],
      contacts: [],
    },
    !dev && {
      fields: {
        FirstName: "Hannah",
        LastName: "Wright",
        UserName: "hwright",
        Title: "Chief Risk Officer",
        Department: "Enterprise Risk",
      },
      roles: ["General User", "Risk Manager"],
      groups: ["Everyone", "Risk Owners"],
      contacts: [email("hwright"), [9, 3, "+1 555 0105", true]],
    },
    {
      fields: {
        FirstName: "GitOps",
        LastName: "Service",
        UserName: "svc_gitops",
        SecurityId: FIXED.parameters.services,
        Department: "Platform Engineering",
      },
      roles: ["System Administrator"],
      groups: ["Everyone", "Administrators"],
      contacts: [[7, 3, "platform-team@example.com", true]],
      password: DEMO_SERVICE_PASSWORD,
    },
  ];
  return users.filter((user): user is DemoUser => user !== false);
}

/** [owner UserName, title, description, due date, complete, target content id] */
const TASKS: Array<[string, string, string, string, boolean, number | null]> = [
  [
    "sysadmin",
    "Review new user requests",
    "Approve or reject pending access requests.",
    "2026-02-02T17:00:00Z",
    false,
    null,
  ],
  [
    "sysadmin",
    "Rotate service credentials",
    "Rotate the svc_gitops password.",
    "2026-02-16T17:00:00Z",
    false,
    null,
  ],
  [
    "sysadmin",
    "Archive 2025 audit logs",
    "Move last year's logs to cold storage.",
    "2026-01-15T17:00:00Z",
    true,
    null,
  ],
  [
    "sysadmin",
    "Quarterly access review",
    "Confirm group memberships for Q1.",
    "2026-03-31T17:00:00Z",
    false,
    1003,
  ],
  [
    "anguyen",
    "Assess vendor risk: Acme Hosting",
    "Complete the vendor risk questionnaire.",
    "2026-02-10T17:00:00Z",
    false,
    1001,
  ],
  ["anguyen", "Update risk register", "Add the Q1 emerging risks.", "2026-01-20T17:00:00Z", true, 1002],
  ["cmendes", "Test control AC-2", "Sample 25 account changes.", "2026-02-27T17:00:00Z", false, 1004],
];

function ensureNamed(
  store: Store,
  kind: "roles" | "groups",
  counter: "role" | "group",
  name: string,
): number {
  const existing = Object.values(store.data[kind]).find((record) => record.Name === name);
  if (existing) return existing.Id;
  const id = store.nextId(counter);
  store.data[kind][String(id)] = { Id: id, Name: name };
  return id;
}

function contactsOf(store: Store, contacts: DemoUser["contacts"]): Contact[] {
  return contacts.map(([type, subType, value, isDefault]) => ({
    Id: store.nextId("contact"),
    ContactType: type,
    ContactSubType: subType,
    IsDefault: isDefault,
    Value: value,
  }));
}

function seedTasks(store: Store): void {
  for (const [owner, title, description, due, complete, target] of TASKS) {
    const user = store.userByName(owner);
    if (!user) continue;
    const id = store.nextId("task");
    const task: Task & { UserId: number } = {
      TaskId: id,
      Title: title,
      Description: description,
      DueDate: due,
      IsComplete: complete,
      TargetContentId: target,
      UserId: user.user.Id,
    };
    store.data.tasks[String(id)] = task;
  }
}

export function seedDemoUsers(store: Store, variant: Variant): void {
  const extraRoles = variant === "dev" ? ["Risk Manager", "Auditor"] : ["Auditor", "Risk Manager"];
  const extraGroups = variant === "dev" ? ["Risk Owners", "Auditors"] : ["Auditors", "Risk Owners"];
  for (const name of extraRoles) ensureNamed(store, "roles", "role", name);
  for (const name of extraGroups) ensureNamed(store, "groups", "group", name);

  for (const demo of demoUsers(variant)) {
    const record = seedUser(store, demo.fields, demo.password ?? DEMO_PASSWORD, {
      roles: demo.roles.map((name) => ensureNamed(store, "roles", "role", name)).sort((a, b) => a - b),
      groups: demo.groups.map((name) => ensureNamed(store, "groups", "group", name)).sort((a, b) => a - b),
    });
    record.contacts = contactsOf(store, demo.contacts);
  }
  seedTasks(store);
}

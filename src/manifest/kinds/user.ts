import { z } from "zod";
import type { FieldSource, SourceLocation } from "../errors.ts";
import type { Reporter } from "../report.ts";
import { Secret } from "../secret.ts";
import {
  type DocumentRule,
  defineKind,
  ENSURE_PRESENT,
  type EnvironmentContext,
  type EnvironmentRule,
  type FieldWords,
  idOf,
  isAbsent,
  type KindDocument,
  nameOfCode,
  namesOf,
  optionalText,
  reportRepeats,
  scoping,
  sourceOf,
} from "./kind.ts";

/** AccountStatus codes (seed: 1 Active, 2 Inactive, 3 Locked). */
export const STATUS_CODES = { active: 1, inactive: 2, locked: 3 } as const;
export type StatusName = keyof typeof STATUS_CODES;

/** ContactType codes (seed: 7 Email, 9 Phone). */
export const CONTACT_TYPE_CODES = { email: 7, phone: 9 } as const;
export type ContactTypeName = keyof typeof CONTACT_TYPE_CODES;

/** ContactSubType codes (seed, 1–14). */
export const CONTACT_SUBTYPE_CODES = {
  assistant: 1,
  business: 2,
  business2: 3,
  businessFax: 4,
  home: 5,
  home2: 6,
  homeFax: 7,
  isdn: 8,
  mobile: 9,
  mobile2: 10,
  other: 11,
  other2: 12,
  otherFax: 13,
  pager: 14,
} as const;
export type ContactSubTypeName = keyof typeof CONTACT_SUBTYPE_CODES;

const SUBTYPE_NAMES = Object.keys(CONTACT_SUBTYPE_CODES) as ContactSubTypeName[];

/** The seed's rule: phone takes subtypes 3–14; email takes any but 1, 4, 7, 8 and 13. */
export function subTypesFor(type: ContactTypeName): ContactSubTypeName[] {
  if (type === "phone") return SUBTYPE_NAMES.filter((name) => CONTACT_SUBTYPE_CODES[name] >= 3);
  return SUBTYPE_NAMES.filter((name) => ![1, 4, 7, 8, 13].includes(CONTACT_SUBTYPE_CODES[name]));
}

const Contact = z.strictObject({
  type: z.enum(["email", "phone"]),
  subType: z.enum(SUBTYPE_NAMES as [ContactSubTypeName, ...ContactSubTypeName[]]),
  value: z.string().min(1).describe("The address or number."),
  default: z
    .boolean()
    .optional()
    .describe("Whether this is the default contact of its type (false if absent)."),
});

export const UserDocument = z
  .strictObject({
    kind: z.literal("User"),
    ...scoping,
    userName: z
      .string()
      .min(1)
      .regex(/^\S(.*\S)?$/, "must not start or end with a space")
      .describe("Key: the login name, matched case-insensitively."),
    ensure: ENSURE_PRESENT,
    firstName: z.string().min(1),
    lastName: z.string().min(1),
    middleName: optionalText("Middle name."),
    displayName: optionalText("Display name; the platform derives one when absent."),
    status: z
      .enum(["active", "inactive", "locked"])
      .optional()
      .describe("Account status. Absent: not managed (a new user is active)."),
    securityParameter: z
      .string()
      .min(1)
      .optional()
      .describe("Name of the user's security parameter. Absent: not managed (the platform default applies)."),
    title: optionalText("Title."),
    company: optionalText("Company."),
    department: optionalText("Department."),
    businessUnit: optionalText("Business unit."),
    address: optionalText("Address."),
    additionalNote: optionalText("Additional note."),
    locale: optionalText("Locale, e.g. en-US."),
    timeZoneId: optionalText("Time zone id."),
    languageId: z.number().int().positive().nullable().optional().describe("Language id."),
    forcePasswordChange: z.boolean().optional().describe("Force a password change at next login."),
    domain: z
      .string()
      .min(1)
      .nullable()
      .optional()
      .describe("Domain name, resolved through the environment's domains map; null: a local account."),
    roles: z
      .array(z.string().min(1))
      .optional()
      .describe(
        "Role names, resolved through the environment's roles map, or (no map) against the roles the instance lists. Absent: not managed.",
      ),
    groups: z
      .array(z.string().min(1))
      .optional()
      .describe("Group names, resolved through the environment's groups map. Absent: not managed."),
    contacts: z.array(Contact).optional().describe("Email addresses and phone numbers. Absent: not managed."),
    initialPassword: z
      .string()
      .min(1)
      .optional()
      .describe(`Password given when the user is created, usually \${VAR}. Never printed.`),
  })
  .describe("A user account. Only the fields given are managed.");
export type UserDocument = z.infer<typeof UserDocument>;

/** The managed scalar fields of a user, named and coded as the platform's interface does. */
export interface UserFields {
  /** Required by the manifest, as the interface's create requires it. */
  FirstName: string;
  LastName: string;
  MiddleName?: string | null;
  DisplayName?: string | null;
  AccountStatus?: number;
  Title?: string | null;
  Company?: string | null;
  Department?: string | null;
  BusinessUnit?: string | null;
  Address?: string | null;
  AdditionalNote?: string | null;
  Locale?: string | null;
  TimeZoneId?: string | null;
  LanguageId?: number | null;
  ForcePasswordChange?: boolean;
  DomainId?: number | null;
}

/** A role, group or domain: the manifest's name and this environment's id for it. */
export interface NamedId {
  name: string;
  id: number;
}

export interface DesiredContact {
  ContactType: number;
  ContactSubType: number;
  IsDefault: boolean;
  Value: string;
}

export interface DesiredUser {
  kind: "User";
  /** Key: `userName` in lower case (user names match case-insensitively). */
  key: string;
  userName: string;
  fields: UserFields;
  /** Name of the security parameter; the planner resolves it to the live `SecurityId`. */
  securityParameter?: string;
  /** Absent: not managed. Sorted by id. */
  roles?: NamedId[];
  /** Absent: not managed. Sorted by id. */
  groups?: NamedId[];
  /**
   * Group names as written, when the environment has no groups map: the plan resolves them against
   * the groups the instance lists (an unknown name is a plan error at its position). Absent: not
   * managed, or resolved into `groups`.
   */
  groupNames?: Array<{ name: string; source: FieldSource }>;
  /**
   * Role names as written, when the environment has no roles map: the plan resolves them against
   * the roles the instance lists, as it does group names. Absent: not managed, or resolved into `roles`.
   */
  roleNames?: Array<{ name: string; source: FieldSource }>;
  /** Absent: not managed. In manifest order. */
  contacts?: DesiredContact[];
  /** Used only when the user is created. */
  initialPassword?: Secret;
  source: SourceLocation;
  /** Where the fields the plan checks against the live state are written, for its errors. */
  fieldSources?: Partial<Record<CheckedField, FieldSource>>;
}

/** Fields the plan checks against the live state (docs/manifests.md, "Checked before any write"). */
export type CheckedField = "initialPassword" | "securityParameter";
const CHECKED_FIELDS = ["initialPassword", "securityParameter"] as const satisfies readonly CheckedField[];

const DIRECT = {
  firstName: "FirstName",
  lastName: "LastName",
  middleName: "MiddleName",
  displayName: "DisplayName",
  title: "Title",
  company: "Company",
  department: "Department",
  businessUnit: "BusinessUnit",
  address: "Address",
  additionalNote: "AdditionalNote",
  locale: "Locale",
  timeZoneId: "TimeZoneId",
  languageId: "LanguageId",
  forcePasswordChange: "ForcePasswordChange",
} as const satisfies Partial<Record<keyof UserDocument, keyof UserFields>>;

/** `subTypesFor` of each type, made once (the rule runs for every contact of every user). */
const SUBTYPES_OF: Readonly<Record<ContactTypeName, readonly ContactSubTypeName[]>> = {
  email: subTypesFor("email"),
  phone: subTypesFor("phone"),
};

const contactSubTypesFitTheirType: DocumentRule<UserDocument> = (doc, report) => {
  doc.contacts?.forEach((contact, index) => {
    const allowed = SUBTYPES_OF[contact.type];
    if (allowed.includes(contact.subType)) return;
    report.error(
      ["contacts", index, "subType"],
      `${contact.subType} is not a subtype of ${contact.type}; expected one of ${allowed.join(", ")}`,
    );
  });
};

const oneDefaultContactPerType: DocumentRule<UserDocument> = (doc, report) => {
  const defaults = new Map<string, number>();
  doc.contacts?.forEach((contact, index) => {
    if (!contact.default) return;
    const first = defaults.get(contact.type);
    if (first === undefined) defaults.set(contact.type, index);
    else
      report.error(
        ["contacts", index, "default"],
        `a second default ${contact.type} (also contacts[${first}])`,
      );
  });
};

const emailsLookLikeAddresses: DocumentRule<UserDocument> = (doc, report) => {
  doc.contacts?.forEach((contact, index) => {
    if (contact.type === "email" && !/^[^@\s]+@[^@\s]+$/.test(contact.value))
      report.error(["contacts", index, "value"], "expected an email address, name@domain");
  });
};

const namesAreListedOnce: DocumentRule<UserDocument> = (doc, report) => {
  reportRepeats(doc.roles, report, "roles");
  reportRepeats(doc.groups, report, "groups");
};

const initialPasswordComesFromVariable: DocumentRule<UserDocument> = (doc, report) => {
  if (doc.initialPassword === undefined || report.document.substituted.has("initialPassword")) return;
  report.warning(["initialPassword"], `is written in the file; use \${VAR} so that it stays out of git`);
};

/** Resolves names through one of the environment's maps; an unknown name is an error. */
function resolveNames(
  names: readonly string[],
  map: Readonly<Record<string, number>>,
  what: "role" | "group",
  path: string,
  environment: EnvironmentContext,
  report: Reporter,
): NamedId[] {
  const resolved: NamedId[] = [];
  names.forEach((name, index) => {
    const id = idOf(map, name);
    if (id !== undefined) {
      resolved.push({ name, id });
      return;
    }
    report.error([path, index], unknownName(what, name, report.quote([path, index]), map, environment));
  });
  return resolved.sort((a, b) => a.id - b.id);
}

function unknownName(
  what: string,
  name: string,
  quoted: string,
  map: Readonly<Record<string, number>>,
  environment: EnvironmentContext,
): string {
  const known = Object.keys(map);
  const near = known.find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  const base = `${what} ${quoted} is not in the ${what}s of ${environment.file}`;
  if (near) return `${base}; did you mean "${near}"?`;
  return known.length > 0 ? `${base} (${known.join(", ")})` : `${base}, which maps none`;
}

function domainId(
  doc: UserDocument,
  environment: EnvironmentContext,
  report: Reporter,
): number | null | undefined {
  if (doc.domain === undefined || doc.domain === null) return doc.domain;
  const id = idOf(environment.domains, doc.domain);
  if (id === undefined)
    report.error(
      ["domain"],
      unknownName("domain", doc.domain, report.quote(["domain"]), environment.domains, environment),
    );
  return id;
}

const DIRECT_ENTRIES = Object.entries(DIRECT) as Array<[keyof typeof DIRECT, keyof UserFields]>;

function fieldsOf(doc: UserDocument, environment: EnvironmentContext, report: Reporter): UserFields {
  // Both names are required, so they are among DIRECT's, in its order.
  const fields: Record<string, unknown> = {};
  for (const [from, to] of DIRECT_ENTRIES) {
    const value = doc[from];
    if (value !== undefined) fields[to] = value;
  }
  if (doc.status) fields.AccountStatus = STATUS_CODES[doc.status];
  const domain = domainId(doc, environment, report);
  if (domain !== undefined) fields.DomainId = domain;
  return fields as unknown as UserFields;
}

function contactsOf(doc: UserDocument): DesiredContact[] | undefined {
  return doc.contacts?.map((contact) => ({
    ContactType: CONTACT_TYPE_CODES[contact.type],
    ContactSubType: CONTACT_SUBTYPE_CODES[contact.subType],
    IsDefault: contact.default ?? false,
    Value: contact.value,
  }));
}

/** A contact as a manifest writes it. */
function contactWords(contact: Partial<DesiredContact>): Record<string, unknown> {
  return {
    type: nameOfCode(CONTACT_TYPE_CODES, contact.ContactType),
    subType: nameOfCode(CONTACT_SUBTYPE_CODES, contact.ContactSubType),
    value: contact.Value,
    ...(contact.IsDefault ? { default: true } : {}),
  };
}

/** Plans' words for the fields `normalize` writes (kind.ts, `FieldWords`). */
const WORDS: FieldWords = {
  ...namesOf(DIRECT),
  AccountStatus: { name: "status", value: (code) => nameOfCode(STATUS_CODES, code) },
  DomainId: { name: "domainId" },
  SecurityParameter: { name: "securityParameter" },
  Contacts: {
    name: "contacts",
    value: (contacts) => (Array.isArray(contacts) ? contacts.map(contactWords) : contacts),
  },
  Groups: { name: "groups" },
  Roles: { name: "roles" },
  Password: { name: "password" },
};

/** A present user's document, among the documents of every kind. */
function isUser(desired: KindDocument): desired is DesiredUser {
  return desired.kind === "User" && !isAbsent(desired);
}

/** Deactivating or locking the account egp logs in as would lock egp out mid-apply. */
const serviceAccountStaysActive: EnvironmentRule = ({ environment, documents }) => {
  const self = environment.auth.username.toLowerCase();
  for (const { desired, report } of documents) {
    if (!isUser(desired) || desired.key !== self) continue;
    const status = desired.fields.AccountStatus;
    if (status !== undefined && status !== 1)
      report.error(
        ["status"],
        `this is the account egp logs in as to ${environment.name}; it must stay active`,
      );
  }
};

export const userKind = defineKind({
  kind: "User",
  plural: "users",
  schema: UserDocument,
  rules: [
    contactSubTypesFitTheirType,
    oneDefaultContactPerType,
    emailsLookLikeAddresses,
    namesAreListedOnce,
    initialPasswordComesFromVariable,
  ],
  key: { field: "userName", of: (desired: DesiredUser) => desired.key },
  words: WORDS,
  references: [{ field: "securityParameter", kind: "SecurityParameter" }],
  environmentRules: [serviceAccountStaysActive],
  absentable: true,
  prune: {
    values: ["ignore", "deactivate", "delete"],
    description: "Live users the manifests do not name: ignore (default), deactivate or delete.",
  },
  normalize(doc, environment, report): DesiredUser {
    const user: DesiredUser = {
      kind: "User",
      key: doc.userName.toLowerCase(),
      userName: doc.userName,
      fields: fieldsOf(doc, environment, report),
      source: sourceOf(report, "userName"),
    };
    if (doc.securityParameter !== undefined) user.securityParameter = doc.securityParameter;
    if (doc.roles && environment.rolesFromInstance)
      user.roleNames = doc.roles.map((name, index) => ({ name, source: report.where(["roles", index]) }));
    else if (doc.roles)
      user.roles = resolveNames(doc.roles, environment.roles, "role", "roles", environment, report);
    if (doc.groups && environment.groupsFromInstance)
      user.groupNames = doc.groups.map((name, index) => ({ name, source: report.where(["groups", index]) }));
    else if (doc.groups)
      user.groups = resolveNames(doc.groups, environment.groups, "group", "groups", environment, report);
    const contacts = contactsOf(doc);
    if (contacts) user.contacts = contacts;
    if (doc.initialPassword !== undefined) user.initialPassword = new Secret(doc.initialPassword);
    if (doc.initialPassword !== undefined || doc.securityParameter !== undefined) {
      const sources: Partial<Record<CheckedField, FieldSource>> = {};
      for (const field of CHECKED_FIELDS)
        if (doc[field] !== undefined) sources[field] = report.where([field]);
      user.fieldSources = sources;
    }
    return user;
  },
});

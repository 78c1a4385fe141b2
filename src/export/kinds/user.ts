import {
  CONTACT_SUBTYPE_CODES,
  CONTACT_TYPE_CODES,
  type EnvironmentConfig,
  STATUS_CODES,
  userKind,
} from "../../manifest/index.ts";
import type { LiveState, LiveUser } from "../../state/index.ts";
import { type Contact, contactSubTypeAllowed, type User } from "../../wire/index.ts";
import { conformEach } from "../conform.ts";
import {
  DocumentWriter,
  type ExportContext,
  type ExportedDocument,
  type KindExport,
  type KindExporter,
  namesByCode,
  text,
} from "../kind.ts";

const STATUSES = namesByCode(STATUS_CODES);
const CONTACT_TYPES = namesByCode(CONTACT_TYPE_CODES);
const CONTACT_SUBTYPES = namesByCode(CONTACT_SUBTYPE_CODES);

/** Free-text fields, manifest name → interface name, in the order the schema lists them. */
const NAMES = [
  ["firstName", "FirstName"],
  ["lastName", "LastName"],
  ["middleName", "MiddleName"],
  ["displayName", "DisplayName"],
] as const satisfies ReadonlyArray<readonly [string, keyof User]>;

const DETAILS = [
  ["title", "Title"],
  ["company", "Company"],
  ["department", "Department"],
  ["businessUnit", "BusinessUnit"],
  ["address", "Address"],
  ["additionalNote", "AdditionalNote"],
  ["locale", "Locale"],
  ["timeZoneId", "TimeZoneId"],
] as const satisfies ReadonlyArray<readonly [string, keyof User]>;

/** What a user document resolves through: the environment's maps and the live parameters. */
interface Lookups {
  parameters: ReadonlyMap<number, string>;
  groups: ReadonlyMap<number, string>;
  domains: ReadonlyMap<number, string>;
  /** Whether the environment maps any group, so that memberships were read. */
  groupsMapped: boolean;
}

/** `name → id` map inverted; where two names share an id, the first one written wins. */
function byId(map: Readonly<Record<string, number>>): Map<number, string> {
  const inverted = new Map<number, string>();
  for (const [name, id] of Object.entries(map)) if (!inverted.has(id)) inverted.set(id, name);
  return inverted;
}

function lookupsOf(environment: EnvironmentConfig, live: LiveState): Lookups {
  return {
    parameters: new Map(live.securityParameters.map((p) => [p.Id, p.Name])),
    // Without a groups map, the instance's own group names (read by readLiveState).
    groups: live.groupsListed
      ? new Map(live.groupsListed.map((g) => [g.Id, g.Name]))
      : byId(environment.groups),
    domains: byId(environment.domains),
    groupsMapped: live.groupsRead.length > 0,
  };
}

function reference(
  w: DocumentWriter,
  key: string,
  id: number | null,
  names: ReadonlyMap<number, string>,
  where: string,
): void {
  if (id === null) return;
  const name = names.get(id);
  if (name === undefined) w.skip(key, `id ${id} is not ${where}`);
  else w.put(key, name);
}

const EMAIL = /^[^@\s]+@[^@\s]+$/;

/** Why a live contact list can't be written as a manifest's, if it can't. */
function contactProblem(contacts: readonly Contact[]): string | undefined {
  const defaults = new Set<number>();
  for (const c of contacts) {
    if (!CONTACT_TYPES.has(c.ContactType) || !contactSubTypeAllowed(c.ContactType, c.ContactSubType))
      return `type ${c.ContactType} with subtype ${c.ContactSubType} has no name`;
    if (c.Value === "") return "a contact has no value";
    if (c.ContactType === CONTACT_TYPE_CODES.email && !EMAIL.test(c.Value))
      return "an email contact is not an address";
    if (c.IsDefault && defaults.has(c.ContactType)) return "two default contacts of one type";
    if (c.IsDefault) defaults.add(c.ContactType);
  }
  return undefined;
}

function contacts(w: DocumentWriter, list: readonly Contact[]): void {
  const problem = contactProblem(list);
  if (problem) {
    w.skip("contacts", problem);
    return;
  }
  w.put(
    "contacts",
    list.map((c) => ({
      type: CONTACT_TYPES.get(c.ContactType),
      subType: CONTACT_SUBTYPES.get(c.ContactSubType),
      value: c.Value,
      ...(c.IsDefault ? { default: true } : {}),
    })),
  );
}

/**
 * One live user as a manifest document. Roles are left out (the interface can't read them), and so
 * is the password; groups are those of the environment's map, by name.
 */
export function userDocument(
  live: LiveUser,
  environment: string,
  lookups: Lookups,
): { doc: ExportedDocument; warnings: string[] } {
  const { user } = live;
  const w = new DocumentWriter(
    { kind: "User", environments: [environment], userName: user.UserName },
    `User "${user.UserName}"`,
  );
  for (const [key, field] of NAMES) w.put(key, text(user[field]));
  const status = STATUSES.get(user.AccountStatus);
  if (status) w.put("status", status);
  else w.skip("status", `code ${user.AccountStatus} is not active, inactive or locked`);
  reference(w, "securityParameter", user.SecurityId, lookups.parameters, "a live security parameter");
  for (const [key, field] of DETAILS) w.put(key, text(user[field]));
  w.put("languageId", user.LanguageId);
  w.put("forcePasswordChange", user.ForcePasswordChange);
  reference(w, "domain", user.DomainId, lookups.domains, "in the environment's domains map");
  if (lookups.groupsMapped) w.put("groups", live.groups.map((id) => lookups.groups.get(id)).filter(Boolean));
  contacts(w, live.contacts);
  return { doc: w.doc, warnings: w.warnings };
}

/** Every live user, sorted by user name. */
export const userExporter: KindExporter = {
  kind: "User",
  file: "users.yaml",
  key: "userName",
  noun: "users",
  export({ environment, live, includeLoginUser }: ExportContext): KindExport {
    const lookups = lookupsOf(environment, live);
    const login = environment.auth.username.toLowerCase();
    const isLogin = (name: string) => !includeLoginUser && name.toLowerCase() === login;
    const sorted = [...live.users]
      .filter((u) => !isLogin(u.user.UserName))
      .sort((a, b) => a.user.UserName.toLowerCase().localeCompare(b.user.UserName.toLowerCase(), "en"));
    const leftOut = live.users.filter((u) => isLogin(u.user.UserName)).map((u) => u.user.UserName);
    const result = conformEach(
      userKind,
      sorted,
      (liveUser) => ({
        ...userDocument(liveUser, environment.name, lookups),
        label: `User "${liveUser.user.UserName}"`,
      }),
      ["kind", "environments", "userName", "firstName", "lastName"],
    );
    return leftOut.length === 0 ? result : { ...result, leftOut };
  },
};

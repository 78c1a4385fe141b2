import { createHash } from "node:crypto";
import { configure } from "safe-stable-stringify";
import type { PlatformClient } from "../client/client.ts";
import { NotFoundError } from "../client/errors.ts";
import type { DesiredState } from "../manifest/index.ts";
import type { Contact, SecurityParameter, User } from "../wire/index.ts";
import type { LivePackageSide, LiveState, LiveUser } from "./live-state.ts";
import { type ObjectRequest, readPackageObjects } from "./package-objects.ts";

/*
 * Reads what one environment needs for a plan, with a number of requests that does not grow with
 * the number of users or parameters (LESSONS 7, 8): one get-all per kind, one get-all-contacts,
 * one users-by-group per mapped group, and the metadata trees of the package objects named. An
 * environment without a groups map costs one read of the instance's groups, and one users-by-group
 * per group the manifests name (every group for export).
 */

export interface ReadLiveOptions {
  /** Client of the environment packages come from; needed when the manifests name packages. */
  source?: PlatformClient;
  /**
   * `managed` (default) reads contacts and group memberships only when a manifest manages them:
   * each of those reads returns every user of the instance. `all` reads them anyway (export).
   */
  scope?: "managed" | "all";
  /** The reads started before the manifests were loaded (`startEarlyReads`), used instead of new ones. */
  early?: EarlyReads;
}

/** The reads of the target that every plan makes whatever the manifests say. */
export interface EarlyReads {
  securityParameters: Promise<SecurityParameter[]>;
  users: Promise<User[]>;
}

/**
 * Starts the reads that do not depend on the manifests, so that the instance answers them while
 * this process parses and validates the manifests (for 10,000 users, both take about as long).
 * Whoever starts them hands them to `readLiveState`; when the manifests turn out invalid nobody
 * does, and their failures are then dropped rather than left unhandled.
 */
export function startEarlyReads(client: PlatformClient): EarlyReads {
  const early: EarlyReads = {
    securityParameters: client.securityParameters.list() as Promise<SecurityParameter[]>,
    users: client.users.list() as Promise<User[]>,
  };
  early.securityParameters.catch(() => undefined);
  early.users.catch(() => undefined);
  return early;
}

async function readUsers(
  client: PlatformClient,
  groupIds: number[],
  withContacts: boolean,
  listed: Promise<User[]>,
): Promise<LiveUser[]> {
  const [users, contacts, memberships] = await Promise.all([
    listed,
    withContacts
      ? (client.users.listContacts() as Promise<Array<{ UserId: number; Contacts: Contact[] }>>)
      : Promise.resolve([]),
    Promise.all(groupIds.map(async (id) => ({ id, members: await client.users.memberIds(id) }))),
  ]);
  const contactsByUser = new Map(contacts.map((entry) => [entry.UserId, entry.Contacts]));
  const groupsByUser = new Map<number, number[]>();
  for (const { id, members } of memberships) {
    for (const member of members) groupsByUser.set(member, [...(groupsByUser.get(member) ?? []), id]);
  }
  return users.map((user) => ({
    user,
    contacts: contactsByUser.get(user.Id) ?? [],
    groups: (groupsByUser.get(user.Id) ?? []).sort((a, b) => a - b),
  }));
}

/** The package objects the manifests name by GUID (applications named by name are resolved on the source). */
function objectRequests(
  desired: DesiredState,
  names: LivePackageSide["applicationsByName"],
): ObjectRequest[] {
  const requests = new Map<string, ObjectRequest>();
  for (const pkg of desired.packages) {
    for (const object of pkg.objects) {
      const guid = object.by === "guid" ? object.guid : names[object.name.toLowerCase()];
      if (guid) requests.set(guid, { guid, type: object.type });
    }
  }
  return [...requests.values()];
}

function needsSource(desired: DesiredState): boolean {
  return desired.packages.length > 0 && desired.packagesFrom !== undefined;
}

/** The instance's groups, or null when it has no group read (an older instance answers 404). */
async function listGroups(client: PlatformClient): Promise<Array<{ Id: number; Name: string }> | null> {
  try {
    const groups = await client.groups.list();
    return groups.map((g) => ({ Id: g.Id, Name: g.Name })).sort((a, b) => a.Id - b.Id);
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

/** Which groups' members to read: the mapped ones, or (no map) those of the instance the manifests name. */
async function groupsToRead(
  client: PlatformClient,
  desired: DesiredState,
  all: boolean,
): Promise<{ ids: number[]; listed?: Array<{ Id: number; Name: string }> | null }> {
  const managed = desired.users.some((u) => u.groups !== undefined || u.groupNames !== undefined);
  if (!all && !managed) return { ids: [] };
  if (!desired.environment.groupsFromInstance)
    return { ids: [...new Set(Object.values(desired.environment.groups))].sort((a, b) => a - b) };
  const listed = await listGroups(client);
  if (!listed) return { ids: [], listed };
  const named = new Set(desired.users.flatMap((u) => u.groupNames?.map((g) => g.name.toLowerCase()) ?? []));
  const ids = listed.filter((g) => all || named.has(g.Name.toLowerCase())).map((g) => g.Id);
  return { ids, listed };
}

export async function readLiveState(
  client: PlatformClient,
  desired: DesiredState,
  options: ReadLiveOptions = {},
): Promise<LiveState> {
  const all = options.scope === "all";
  const managesContacts = all || desired.users.some((user) => user.contacts !== undefined);
  const readSource = async () => {
    if (!needsSource(desired)) return undefined;
    if (!options.source)
      throw new Error(`reading ${desired.environment.name} needs a client for ${desired.packagesFrom?.name}`);
    return readPackageObjects(options.source, (names) => objectRequests(desired, names));
  };
  const early = options.early ?? startEarlyReads(client);
  const groups = groupsToRead(client, desired, all);
  const [securityParameters, users, source, { ids: groupIds, listed }] = await Promise.all([
    early.securityParameters,
    groups.then(({ ids }) => readUsers(client, ids, managesContacts, early.users)),
    readSource(),
    groups,
  ]);
  const packages = source
    ? await readPackageObjects(client, source.requests)
    : { objects: {}, applicationsByName: {} };

  const state: Omit<LiveState, "digest" | "partDigests"> = {
    environment: desired.environment.name,
    securityParameters: [...securityParameters].sort((a, b) => a.Id - b.Id),
    users: users.sort((a, b) => a.user.Id - b.user.Id),
    groupsRead: groupIds,
    ...(listed !== undefined ? { groupsListed: listed } : {}),
    packages: { objects: packages.objects, applicationsByName: packages.applicationsByName },
    ...(source && desired.packagesFrom
      ? {
          packageSource: {
            environment: desired.packagesFrom.name,
            objects: source.objects,
            applicationsByName: source.applicationsByName,
          },
        }
      : {}),
  };
  const parts = partDigests(state);
  return { ...state, digest: combine(state.environment, parts), partDigests: parts };
}

/** Canonical JSON (keys sorted at every depth), the plan's `canonicalJson`. */
const canonicalJson = configure({ circularValue: TypeError, bigint: false });
const hash = (value: unknown) =>
  createHash("sha256")
    .update(canonicalJson(value) ?? "null")
    .digest("hex");

/**
 * Users are hashed one by one: one string per user, never one for all 10,000. Plain JSON is canonical
 * here: every user went through the same wire schema, which writes its keys in one order.
 */
function usersDigest(
  users: LiveState["users"],
  groupsRead: number[],
  groupsListed: LiveState["groupsListed"],
): string {
  // The listed groups join the digest only when they were read, so other plans' digests stay as they were.
  const groups = groupsListed === undefined ? groupsRead : [groupsRead, groupsListed];
  const digest = createHash("sha256").update(JSON.stringify(groups));
  for (const { user, contacts, groups } of users) {
    digest.update(JSON.stringify([{ ...user, LastLoginDate: null }, contacts, groups])).update("\n");
  }
  return digest.digest("hex");
}

function partDigests(state: Omit<LiveState, "digest" | "partDigests">): LiveState["partDigests"] {
  return {
    securityParameters: hash(state.securityParameters),
    users: usersDigest(state.users, state.groupsRead, state.groupsListed),
    packages: hash([state.packages, state.packageSource ?? null]),
  };
}

function combine(environment: string, parts: LiveState["partDigests"]): string {
  return hash({ environment, parts });
}

/**
 * Digest of what a plan depends on. Volatile fields that change without anyone changing the
 * configuration (last login) are left out, so a saved plan is not refused for them.
 */
export function liveDigest(state: Omit<LiveState, "digest" | "partDigests">): string {
  return combine(state.environment, partDigests(state));
}

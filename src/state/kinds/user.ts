import { createHash } from "node:crypto";
import type { PlatformClient } from "../../client/client.ts";
import { notOffered } from "../../client/errors.ts";
import { type Filter, odataParams } from "../../client/odata.ts";
import type { DesiredState, ManifestIssue } from "../../manifest/index.ts";
import type { Contact, User } from "../../wire/index.ts";
import type { LiveUser } from "../live-objects.ts";
import { type EarlyRead, earlyRead, liveKind, managesKind, pruneNames } from "./kind.ts";

/** The users part of the live state. */
export interface LiveUsers {
  users: LiveUser[];
  /** Group ids whose membership was read. */
  groupsRead: number[];
  /**
   * The instance's groups, read (one list read) when the environment has no groups map and a
   * manifest names groups; null when the instance has no group read (404), so the map is needed.
   * Absent: not read.
   */
  groupsListed?: Array<{ Id: number; Name: string }> | null;
  /**
   * The instance's roles, read (one list read) when a manifest manages a user's roles; null when
   * the instance does not answer the role reads (404, as an instance without them or with
   * integrations off answers), so roles can't be checked. Absent: not read.
   */
  rolesListed?: Array<{ Id: number; Name: string }> | null;
}

async function readUsers(
  client: PlatformClient,
  groupIds: number[],
  withContacts: boolean,
  listed: Promise<User[]>,
  only?: Filter,
): Promise<LiveUser[]> {
  const [users, contacts, memberships] = await Promise.all([
    listed,
    withContacts
      ? (client.users.listContacts() as Promise<Array<{ UserId: number; Contacts: Contact[] }>>)
      : Promise.resolve([]),
    Promise.all(groupIds.map(async (id) => ({ id, members: await membersOf(client, id, only) }))),
  ]);
  const inOrder = joinedInOrder(users, contacts, memberships);
  if (inOrder) return inOrder;
  const contactsByUser = new Map(contacts.map((entry) => [entry.UserId, entry.Contacts]));
  const groupsByUser = new Map<number, number[]>();
  for (const { id, members } of memberships) {
    for (const member of members) {
      const groups = groupsByUser.get(member);
      if (groups) groups.push(id);
      else groupsByUser.set(member, [id]);
    }
  }
  return users.map((user) => {
    const groups = groupsByUser.get(user.Id);
    if (groups && groups.length > 1) groups.sort((a, b) => a - b);
    return { user, contacts: contactsByUser.get(user.Id) ?? [], groups: groups ?? [] };
  });
}

/**
 * A group's member ids, only the named users' when `only` is given: the interface lists OData for
 * the users list alone, so an instance that refuses the filter on users-by-group is read whole,
 * and one that ignores it answers every member (the join keeps only the users read).
 */
async function membersOf(client: PlatformClient, id: number, only: Filter | undefined): Promise<number[]> {
  if (!only) return client.users.memberIds(id);
  try {
    return await client.users.memberIds(id, { filter: only });
  } catch (error) {
    if (notOffered(error)) return client.users.memberIds(id);
    throw error;
  }
}

const increasing = (ids: readonly number[]) => ids.every((id, i) => i === 0 || id > (ids[i - 1] as number));

/**
 * The join above without its maps, when the answers come as instances send them: users by
 * increasing id, one contacts entry per user in the same order, and each group's members by
 * increasing id. Walks the lists side by side; undefined when they are not so ordered.
 */
function joinedInOrder(
  users: readonly User[],
  contacts: ReadonlyArray<{ UserId: number; Contacts: Contact[] }>,
  memberships: ReadonlyArray<{ id: number; members: number[] }>,
): LiveUser[] | undefined {
  const ids = users.map((user) => user.Id);
  if (!increasing(ids)) return undefined;
  const aligned = contacts.length === 0 || contacts.length === users.length;
  if (!aligned || contacts.some((entry, i) => entry.UserId !== ids[i])) return undefined;
  if (!memberships.every(({ members }) => increasing(members))) return undefined;
  const groups: Array<number[] | undefined> = new Array(users.length);
  for (const { id, members } of memberships) {
    let at = 0;
    for (const member of members) {
      while (at < ids.length && (ids[at] as number) < member) at += 1;
      if (ids[at] !== member) continue;
      const joined = groups[at];
      if (joined) joined.push(id);
      else groups[at] = [id];
    }
  }
  return users.map((user, i) => {
    const joined = groups[i];
    if (joined && joined.length > 1) joined.sort((a, b) => a - b);
    return { user, contacts: contacts[i]?.Contacts ?? [], groups: joined ?? [] };
  });
}

/** The instance's groups, or null when it offers no group read (an older instance answers 404). */
async function listGroups(client: PlatformClient): Promise<Array<{ Id: number; Name: string }> | null> {
  try {
    const groups = await client.groups.list();
    return groups.map((g) => ({ Id: g.Id, Name: g.Name })).sort((a, b) => a.Id - b.Id);
  } catch (error) {
    if (notOffered(error)) return null;
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

/** Users whose manifest manages roles, by lower-case name. */
function roleManagedNames(desired: DesiredState): Set<string> {
  return new Set(
    desired.users.filter((u) => u.roles !== undefined || u.roleNames !== undefined).map((u) => u.key),
  );
}

/**
 * The instance's roles and, for each user whose manifest manages roles, the roles the user holds,
 * one read per such user (the client keeps them within the environment's concurrency). Null when
 * the instance does not answer the role reads: roles can't be checked there.
 */
async function readRoles(
  client: PlatformClient,
  users: LiveUser[],
  managed: ReadonlySet<string>,
): Promise<LiveUsers["rolesListed"]> {
  try {
    const listed = (await client.roles.list()).map((r) => ({ Id: r.Id, Name: r.Name }));
    const wanted = users.filter((u) => managed.has(u.user.UserName.toLowerCase()));
    const held = await Promise.all(wanted.map((u) => client.roles.ofUser(u.user.Id)));
    wanted.forEach((u, i) => {
      u.roles = [...new Set((held[i] ?? []).map((r) => r.Id))].sort((a, b) => a - b);
    });
    return listed.sort((a, b) => a.Id - b.Id);
  } catch (error) {
    if (!notOffered(error)) throw error;
    for (const u of users) delete u.roles;
    return null;
  }
}

/** About how much text is hashed at once: a few hundred users' lines, not one call per line. */
const HASHED_AT_ONCE = 1 << 16;

/**
 * Users are hashed by slices of their lines, one JSON line per user, never one string for all
 * 10,000. Plain JSON is canonical here: every user went through the same wire schema, which writes
 * its keys in one order.
 */
function usersDigest(
  users: LiveUser[],
  groupsRead: number[],
  groupsListed: LiveUsers["groupsListed"],
  rolesListed: LiveUsers["rolesListed"],
): string {
  // The listed groups and roles join the digest only when they were read, so other plans' digests stay as they were.
  const listed = rolesListed === undefined ? [groupsListed] : [groupsListed ?? null, rolesListed];
  const groups =
    groupsListed === undefined && rolesListed === undefined ? groupsRead : [groupsRead, ...listed];
  const digest = createHash("sha256").update(JSON.stringify(groups));
  let text = "";
  for (const { user, contacts, groups, roles } of users) {
    // A user that has never logged in already reads as the copy would: no copy is made for it.
    const stable = user.LastLoginDate === null ? user : { ...user, LastLoginDate: null };
    const line = roles === undefined ? [stable, contacts, groups] : [stable, contacts, groups, roles];
    text += `${JSON.stringify(line)}\n`;
    if (text.length >= HASHED_AT_ONCE) {
      digest.update(text);
      text = "";
    }
  }
  return digest.update(text).digest("hex");
}

const PART = "users";

/**
 * Every user, or (a plan targeting users by exact name, `--target User/jdoe`) only those: one list
 * read with an OData `UserName eq` filter, which the platform matches case-insensitively; the names
 * of what comes back are checked too. It needs no manifest, so it starts early.
 */
export const usersEarly: EarlyRead<User[]> = {
  narrowedBy: "User",
  async start(client, names) {
    if (names === undefined) return (await client.users.list()) as User[];
    if (names.length === 0) return [];
    const filter = namesFilter(names);
    const wanted = new Set(names.map((name) => name.toLowerCase()));
    // An instance that ignores the filter answers every user; only the named ones may be planned.
    const found = (await client.users.list(filter ? { filter } : undefined)) as User[];
    return found.filter((user) => wanted.has(user.UserName.toLowerCase()));
  },
  managed: managedUserNames,
};

/**
 * The longest query a filter by names may take: IIS, which serves the platform, refuses a query
 * string over 2,048 bytes by default (`maxQueryString`). A longer list of names is read whole.
 */
const MAX_QUERY = 2048;

/** `UserName eq` each of the names, or undefined when the query would be too long to send. */
function namesFilter(names: readonly string[]): Filter | undefined {
  const filter: Filter = { or: names.map((name) => ({ field: "UserName", op: "eq" as const, value: name })) };
  return new URLSearchParams(odataParams({ filter })).toString().length <= MAX_QUERY ? filter : undefined;
}

/**
 * The names of the users the manifests manage, when only they need reading: nothing prunes users
 * (a PrunePolicy naming them, or deleting parameters, which asks whether any user still has one).
 */
function managedUserNames(desired: DesiredState): string[] | undefined {
  if (pruneNames(desired, "users") || desired.prune.securityParameters === "delete") return undefined;
  const absent = desired.absent
    .filter((document) => document.kind === "User")
    .map((document) => document.name);
  return [...desired.users.map((user) => user.userName), ...absent];
}

/**
 * Users: one get-all (started early), one get-all-contacts when a manifest manages contacts, one
 * users-by-group per group whose membership matters.
 */
export const userLive = liveKind({
  part: PART,
  label: "users",
  early: usersEarly,
  // Deleting a parameter asks whether a user still has it.
  needed: {
    kinds: ["User", "PrunePolicy"],
    of: (desired) =>
      managesKind(desired, "User", desired.users) ||
      pruneNames(desired, "users") ||
      desired.prune.securityParameters === "delete",
    empty: { users: [], groupsRead: [] },
  },
  async read(context): Promise<LiveUsers> {
    const { client, desired, all } = context;
    const managesContacts = all || desired.users.some((user) => user.contacts !== undefined);
    // Only the managed users (`managedOnly`, status), when the manifests name few enough of them.
    const names = context.options.managedOnly && !all ? managedUserNames(desired) : undefined;
    const only = names && names.length > 0 ? namesFilter(names) : undefined;
    // Started before the groups are listed, as an early read would have been.
    const usersRead =
      names && (only || names.length === 0)
        ? usersEarly.start(client, names)
        : earlyRead(context, PART, usersEarly);
    usersRead.catch(() => undefined); // awaited below, unless the groups' read fails first
    const { ids, listed } = await groupsToRead(client, desired, all);
    const users = await readUsers(client, ids, managesContacts, usersRead, only);
    const rolesManaged = roleManagedNames(desired);
    const rolesListed = rolesManaged.size > 0 ? await readRoles(client, users, rolesManaged) : undefined;
    return {
      users: users.sort((a, b) => a.user.Id - b.user.Id),
      groupsRead: ids,
      ...(listed !== undefined ? { groupsListed: listed } : {}),
      ...(rolesListed !== undefined ? { rolesListed } : {}),
    };
  },
  digest: (state) => usersDigest(state.users, state.groupsRead, state.groupsListed, state.rolesListed),
});

/**
 * Where users' roles are managed but the instance does not answer the role reads (an instance
 * without them, or one with integrations off): a warning that roles can't be checked there, so a
 * plan, drift or status that finds nothing else never reads as "no drift" for roles.
 */
export function rolesUnchecked(
  desired: DesiredState,
  live: { rolesListed?: LiveUsers["rolesListed"] },
): ManifestIssue[] {
  if (live.rolesListed !== null) return [];
  const managed = desired.users.filter((u) => u.roles !== undefined || u.roleNames !== undefined).length;
  const { name, source } = desired.environment;
  const users = managed === 1 ? "1 user's roles" : `${managed} users' roles`;
  return [
    {
      ...source,
      severity: "warning",
      path: "",
      message: `can't check roles on ${name}: it does not answer the role reads (core/system/role), so ${users} are written on apply but never compared; drift says nothing of them`,
    },
  ];
}

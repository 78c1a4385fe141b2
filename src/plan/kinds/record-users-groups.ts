import type { RecordFieldValue } from "../../manifest/kinds/record.ts";
import type { LiveRecordField } from "../../state/kinds/record.ts";
import type { RecordPrincipals } from "../../state/kinds/record-principals.ts";
import { didYouMean, type Resolved, sameSet, type ValueProblem } from "./record-value-base.ts";

/*
 * A users/groups field: written `{ users: [userName, ...], groups: [groupName, ...] }` (either list
 * may be left out, and then holds no one), sent as `{UserList: [{Id}], GroupList: [{Id}]}`. Names
 * resolve against the instance's users and groups; the platform keeps both unique without regard
 * to case, so a name differing only in case is the same user. The live value compares as two sets
 * of ids and shows by name.
 */

type Principal = { id: number; name: string };

const KEYS = ["users", "groups"] as const;

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A mapping's value by name, its key compared without regard to case (`UserList`, `userlist`). */
function keyed(value: Record<string, unknown>, name: string): unknown {
  const key = Object.keys(value).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : value[key];
}

/** The names a desired value gives per list, or why it is not one. */
function namesOf(desired: RecordFieldValue): { users: string[]; groups: string[] } | string {
  const form = "a users/groups field takes { users: [user names], groups: [group names] }";
  if (desired === null) return { users: [], groups: [] };
  if (!isMapping(desired)) return form;
  const extra = Object.keys(desired).filter((key) => !(KEYS as readonly string[]).includes(key));
  if (extra.length > 0) return `${form}, not "${extra[0]}"`;
  const lists = { users: [] as string[], groups: [] as string[] };
  for (const key of KEYS) {
    const value = desired[key];
    if (value === undefined || value === null) continue;
    const items = Array.isArray(value) ? value : [value];
    if (!items.every((item): item is string => typeof item === "string" && item.trim() !== ""))
      return `${form}: ${key} is a list of names`;
    lists[key] = items.map((item) => item.trim());
  }
  return lists;
}

/** The one principal a name names: exactly, else the one that differs only in case. */
function find(known: readonly Principal[], name: string): Principal | undefined {
  const exact = known.find((principal) => principal.name === name);
  if (exact) return exact;
  const loose = known.filter((principal) => principal.name.toLowerCase() === name.toLowerCase());
  return loose.length === 1 ? loose[0] : undefined;
}

/** The live value's ids per list (`{UserList: [{Id}], GroupList: [{Id}]}`, or nothing). */
function liveIds(live: unknown): { users: number[]; groups: number[] } {
  const ids = (list: unknown) =>
    Array.isArray(list)
      ? list.map((item) => Number(isMapping(item) ? keyed(item, "Id") : item)).filter(Number.isFinite)
      : [];
  if (!isMapping(live)) return { users: [], groups: [] };
  return { users: ids(keyed(live, "UserList")), groups: ids(keyed(live, "GroupList")) };
}

/** A live id by name; one the instance no longer lists shows as what it is. */
function nameOf(known: readonly Principal[] | null, id: number, what: string): string {
  return known?.find((principal) => principal.id === id)?.name ?? `(${what} id ${id}, not listed)`;
}

export function resolveUsersGroups(
  field: LiveRecordField,
  desired: RecordFieldValue,
  live: unknown,
  principals: RecordPrincipals | undefined,
): Resolved | ValueProblem {
  const names = namesOf(desired);
  if (typeof names === "string") return { problem: "invalid", message: names };
  const users = principals?.users ?? [];
  const groups = principals?.groups ?? null;
  if (names.groups.length > 0 && groups === null)
    return {
      problem: "invalid",
      message: `can't resolve the group names of "${field.name}": the instance does not answer the group read (core/system/group)`,
    };
  const userIds: number[] = [];
  for (const name of names.users) {
    const user = find(users, name);
    if (!user)
      return {
        problem: "unresolved",
        message: `no user "${name}" on the instance (for "${field.name}")${didYouMean(
          name,
          users.map((known) => known.name),
        )}`,
      };
    userIds.push(user.id);
  }
  const groupIds: number[] = [];
  for (const name of names.groups) {
    const group = find(groups ?? [], name);
    if (!group)
      return {
        problem: "unresolved",
        message: `no group "${name}" on the instance (for "${field.name}")${didYouMean(
          name,
          (groups ?? []).map((known) => known.name),
        )}`,
      };
    groupIds.push(group.id);
  }
  const current = liveIds(live);
  const shown = {
    users: current.users.map((id) => nameOf(users, id, "user")),
    groups: current.groups.map((id) => nameOf(groups, id, "group")),
  };
  const empty = current.users.length === 0 && current.groups.length === 0;
  const before = empty
    ? null
    : Object.fromEntries(Object.entries(shown).filter(([, list]) => list.length > 0));
  const unique = (ids: number[]) => [...new Set(ids)];
  const wire =
    userIds.length === 0 && groupIds.length === 0
      ? null
      : {
          UserList: unique(userIds).map((Id) => ({ Id })),
          GroupList: unique(groupIds).map((Id) => ({ Id })),
        };
  return {
    wire,
    same: sameSet(userIds, current.users) && sameSet(groupIds, current.groups),
    before,
  };
}

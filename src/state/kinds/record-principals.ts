import type { PlatformClient } from "../../client/client.ts";
import { notOffered } from "../../client/errors.ts";
import type { DesiredRecords } from "../../manifest/kinds/record.ts";
import { FieldType } from "../../wire/index.ts";

/*
 * The instance's users and groups, by id and name, read once per plan when a Record document
 * writes a users/groups field: the planner resolves the names the document gives against them and
 * shows the live ids by name. One users list (`$select` of the id and name) and one groups list.
 */

export interface RecordPrincipals {
  users: { id: number; name: string }[];
  /** null: the instance has no group read (404), so group names can't be resolved. */
  groups: { id: number; name: string }[] | null;
}

/**
 * Whether a document gives a field of users/groups type (each document's level's fields, in order),
 * or, with `subforms`, whether a sub-form it writes rows of has one (its fields follow the levels').
 */
export function writesPrincipals(
  documents: readonly DesiredRecords[],
  fieldsOf: readonly (readonly { name: string; type: number }[])[],
  subforms = false,
): boolean {
  const extra = fieldsOf.slice(documents.length).flat();
  if (subforms && extra.some((field) => field.type === FieldType.UsersGroups)) return true;
  return documents.some((document, index) => {
    const fields = fieldsOf[index] ?? [];
    const named = new Set(document.records.flatMap((entry) => Object.keys(entry.values)));
    return fields.some((field) => field.type === FieldType.UsersGroups && named.has(field.name));
  });
}

async function usersOf(client: PlatformClient): Promise<{ id: number; name: string }[]> {
  try {
    const users = await client.users.listFields(["Id", "UserName"]);
    return users.map((user) => ({ id: Number(user.Id), name: String(user.UserName) }));
  } catch (error) {
    // An instance that refuses `$select` on the users list is read whole.
    if (!notOffered(error)) throw error;
    return (await client.users.list()).map((user) => ({ id: user.Id, name: user.UserName }));
  }
}

async function groupsOf(client: PlatformClient): Promise<{ id: number; name: string }[] | null> {
  try {
    return (await client.groups.list()).map((group) => ({ id: group.Id, name: group.Name }));
  } catch (error) {
    if (notOffered(error)) return null;
    throw error;
  }
}

export async function readPrincipals(client: PlatformClient): Promise<RecordPrincipals> {
  const [users, groups] = await Promise.all([usersOf(client), groupsOf(client)]);
  const byId = (a: { id: number }, b: { id: number }) => a.id - b.id;
  return { users: users.sort(byId), groups: groups ? groups.sort(byId) : null };
}

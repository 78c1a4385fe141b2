import { FieldType, type UsersGroupsContent } from "../../wire/index.ts";
import { forbidden } from "../failure.ts";
import { isAdministrator } from "../sessions.ts";
import type { Session, Store } from "../store.ts";
import type { ContentData, StoredRecord } from "./model.ts";

/*
 * Read permission on a record, the way record permissions work on real instances: a System
 * Administrator reads everything; anyone else reads a record they created, or one whose
 * users/groups fields (type 8: record permissions, user/group lists) name them or one of their
 * groups. Updates and deletes need the same access. Reads of several records leave the others out.
 */

/** The user and group ids a type 8 value names. */
function principalsOf(record: StoredRecord): { users: Set<number>; groups: Set<number> } {
  const users = new Set<number>();
  const groups = new Set<number>();
  for (const content of Object.values(record.FieldContents)) {
    if (content.Type !== FieldType.UsersGroups) continue;
    const value = content.Value as UsersGroupsContent;
    for (const user of value.UserList) users.add(user.Id);
    for (const group of value.GroupList) groups.add(group.Id);
  }
  return { users, groups };
}

export function canRead(store: Store, userId: number, record: StoredRecord): boolean {
  const user = store.user(userId);
  if (!user) return false;
  if (isAdministrator(user) || record.OwnerId === userId) return true;
  const { users, groups } = principalsOf(record);
  return users.has(userId) || user.groups.some((group) => groups.has(group));
}

export function sessionUser(session: Session | undefined): number {
  return session?.userId ?? 0;
}

/** Throws 403 unless the caller may read (and so change) the record. */
export function requireAccess(store: Store, session: Session | undefined, record: StoredRecord): void {
  if (canRead(store, sessionUser(session), record)) return;
  throw forbidden(
    "ContentAccessDenied",
    `The session's user has no read permission on content ${record.Id}.`,
  );
}

/** May the caller read the attachment: its uploader, or a reader of a record that holds it. */
export function canReadAttachment(
  store: Store,
  content: ContentData,
  userId: number,
  attachmentId: number,
  ownerId: number,
): boolean {
  if (ownerId === userId || isAdministrator(store.user(userId))) return true;
  return Object.values(content.records).some(
    (record) =>
      Object.values(record.FieldContents).some(
        (field) =>
          (field.Type === FieldType.Attachment || field.Type === FieldType.Image) &&
          (field.Value as number[]).includes(attachmentId),
      ) && canRead(store, userId, record),
  );
}

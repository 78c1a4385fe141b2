import {
  ChangePasswordRequest,
  Contact,
  ContactsByUser,
  CreateUserRequest,
  type Envelope,
  type Task,
  TaskQueryRequest,
  UpdateUserRequest,
  UserGroupRequest,
  UserRoleRequest,
} from "../../wire/index.ts";
import { bind } from "../bind.ts";
import { ok, okId } from "../envelope.ts";
import { badRequest, notFound } from "../failure.ts";
import { applyODataQuery, parseODataQuery, parseODataString, selectFields } from "../odata.ts";
import { fieldKinds } from "../odata-fields.ts";
import { pathId } from "../path-id.ts";
import type { RouteContext, Routes } from "../router.ts";
import { FIXED } from "../seeds/fixed.ts";
import { requireAdministrator } from "../sessions.ts";
import type { Session, Store, UserRecord } from "../store.ts";
import { TASK_FIELDS, taskField, USER_FIELDS } from "../users/fields.ts";
import { withMembership } from "../users/memberships.ts";
import { applyStatus, changePassword, createUser, updateUser } from "../users/write-user.ts";

/*
 * The User segment: all 14 operations of the seed. Writes need the System Administrator role;
 * reads need any valid session. Choices where the seed is silent: docs/emulator.md, "Users".
 */

const CONTACTS_BY_USER_FIELDS = fieldKinds(ContactsByUser);
const CONTACT_FIELDS = fieldKinds(Contact);

function administratorId(store: Store, session: Session | undefined): number {
  requireAdministrator(store, session);
  return (session as Session).userId;
}

function userOr404(store: Store, id: number): UserRecord {
  const record = store.user(id);
  if (!record) throw notFound("User", id);
  return record;
}

function touch(store: Store, record: UserRecord, callerId: number): void {
  const info = record.user.UpdateInformation;
  record.user.UpdateInformation = {
    CreateDate: info?.CreateDate ?? null,
    CreateLogin: info?.CreateLogin ?? null,
    UpdateDate: store.isoNow(),
    UpdateLogin: callerId,
  };
}

function setStatus({ store, session, params }: RouteContext, status: 1 | 2): Envelope {
  const callerId = administratorId(store, session);
  const record = userOr404(store, pathId(params, "userId"));
  const before = record.user.AccountStatus;
  record.user.AccountStatus = status;
  applyStatus(store, record, before);
  // Activate also ends a lockout that is still running.
  if (status === 1) {
    record.lockedUntil = null;
    record.failedLogins = 0;
  }
  touch(store, record, callerId);
  store.changed(`users/${record.user.Id}`);
  return okId(record.user.Id);
}

function deleteUser({ store, session, params }: RouteContext): Envelope {
  const callerId = administratorId(store, session);
  const id = pathId(params, "userId");
  userOr404(store, id);
  if (id === FIXED.adminUserId) {
    throw badRequest(
      "CannotDeleteAdministrator",
      `User ${id} is the system administrator and cannot be deleted.`,
      id,
    );
  }
  if (id === callerId) throw badRequest("CannotDeleteSelf", "A user cannot delete their own account.", id);
  delete store.data.users[String(id)];
  store.endSessionsOf(id);
  for (const [key, task] of Object.entries(store.data.tasks)) {
    if (task.UserId === id) delete store.data.tasks[key];
  }
  store.changed(`users/${id}`, "tasks");
  // The seed: ValidationMessages is null on this call.
  return { Links: [], RequestedObject: { Id: id }, IsSuccessful: true, ValidationMessages: null };
}

/** The caller's tasks; the query is the body's `Value` string, else the URL's query. */
function readTasks({ store, session, body, query }: RouteContext): Envelope[] {
  const value = body === undefined ? undefined : bind(TaskQueryRequest, body, "task query").Value;
  const options = value ? parseODataString(value) : query;
  const odata = parseODataQuery(options, TASK_FIELDS);
  const userId = (session as Session).userId;
  const tasks: Task[] = Object.values(store.data.tasks)
    .filter((task) => task.UserId === userId)
    .sort((a, b) => a.TaskId - b.TaskId)
    .map(({ UserId: _owner, ...task }) => task);
  return applyODataQuery(tasks, odata, taskField).map((task) => ok(selectFields(task, odata, taskField)));
}

export function registerUsers(routes: Routes): void {
  routes.post("/core/system/user", ({ store, session, body }) => {
    const callerId = administratorId(store, session);
    return okId(createUser(store, callerId, bind(CreateUserRequest, body, "create user")).user.Id);
  });

  routes.put("/core/system/user", ({ store, session, body }) => {
    const callerId = administratorId(store, session);
    return okId(updateUser(store, callerId, bind(UpdateUserRequest, body, "update user")).user.Id);
  });

  routes.list("/core/system/user", ({ store }) => store.allUsers().map((record) => record.user), USER_FIELDS);

  routes.read("/core/system/user/:userId", ({ store, params }) =>
    ok(userOr404(store, pathId(params, "userId")).user),
  );

  routes.delete("/core/system/user/:userId", deleteUser);

  routes.list(
    "/core/system/user/group/:groupId",
    ({ store, params }) => {
      const groupId = pathId(params, "groupId");
      if (!store.group(groupId)) throw notFound("Group", groupId);
      return store
        .allUsers()
        .filter((record) => record.groups.includes(groupId))
        .map((record) => record.user);
    },
    USER_FIELDS,
  );

  routes.post("/core/system/user/status/active/:userId", (ctx) => setStatus(ctx, 1));
  routes.post("/core/system/user/status/inactive/:userId", (ctx) => setStatus(ctx, 2));

  routes.put("/core/system/userrole", ({ store, session, body }) => {
    administratorId(store, session);
    const request = bind(UserRoleRequest, body, "user role");
    const record = userOr404(store, request.UserId);
    if (!store.role(request.RoleId)) throw notFound("Role", request.RoleId);
    record.roles = withMembership(record.roles, request.RoleId, request.IsAdd);
    store.changed(`users/${record.user.Id}`);
    return okId(request.RoleId);
  });

  routes.put("/core/system/usergroup", ({ store, session, body }) => {
    administratorId(store, session);
    const request = bind(UserGroupRequest, body, "user group");
    const record = userOr404(store, request.UserId);
    if (!store.group(request.GroupId)) throw notFound("Group", request.GroupId);
    record.groups = withMembership(record.groups, request.GroupId, request.IsAdd);
    store.changed(`users/${record.user.Id}`);
    return okId(request.GroupId);
  });

  routes.put("/core/system/userpassword", ({ store, session, body }) => {
    administratorId(store, session);
    const request = bind(ChangePasswordRequest, body, "change password");
    changePassword(store, userOr404(store, request.UserId), request.NewPassword);
    return ok({});
  });

  routes.list(
    "/core/system/usercontact",
    ({ store }) => store.allUsers().map((record) => ({ UserId: record.user.Id, Contacts: record.contacts })),
    CONTACTS_BY_USER_FIELDS,
  );

  routes.list(
    "/core/system/usercontact/:userId",
    ({ store, params }) => userOr404(store, pathId(params, "userId")).contacts,
    CONTACT_FIELDS,
  );

  // The query is the body's `Value`, or the URL's when there is no body.
  routes.read("/core/system/task", readTasks, { odata: true });
}

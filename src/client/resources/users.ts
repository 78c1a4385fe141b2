import type { z } from "zod";
import {
  type ChangePasswordRequest,
  Contact,
  ContactsByUser,
  type CreateUserRequest,
  EmptyObject,
  IdObject,
  Task,
  type UpdateUserRequest,
  User,
  type UserGroupRequest,
  type UserRoleRequest,
} from "../../wire/index.ts";
import { idOf } from "../args.ts";
import type { Call, Caller } from "../caller.ts";
import { many, one } from "../envelope.ts";
import { type ODataQuery, odataParams, odataText } from "../odata.ts";
import type { Scrubber } from "../redact.ts";
import { route } from "../route.ts";

/*
 * The 14 user operations of the seed. Reads keep every field the instance sends (loose objects):
 * an update must send the whole live user back, or omitted fields reset (DESIGN §3).
 * - activate and deactivate are POSTs, but setting a status twice has the same effect as once, so
 *   they are retried like PUTs;
 * - change password is a PUT, but not retried: if the first try went through and its answer was
 *   lost, a repeat would be refused as a reuse of a previous password. It raises
 *   OutcomeUnknownError instead.
 * Passwords sent through these calls are added to the scrubber, so they never reach a log.
 */

const UserRead = User.loose();
export type UserRead = z.infer<typeof UserRead>;
const ContactRead = Contact.loose();
const ContactsRead = ContactsByUser.extend({ Contacts: ContactRead.array() }).loose();
const TaskRead = Task.loose();

const idOnly = one(IdObject);

/** OData options of the users list; `$select` changes the result's shape, see `listFields`. */
export type UserQuery = Omit<ODataQuery, "select">;

export function usersResource(caller: Caller, scrubber: Scrubber) {
  const users = route`/core/system/user`;
  const byId = (userId: number) => route`/core/system/user/${idOf("userId", userId)}`;
  const write = async (call: Call<IdObject>) => (await caller.call(call)).Id;
  /** Users by group, each answer checked against `schema` (the whole user, or its id only). */
  const byGroup = <S extends z.ZodType>(groupId: number, schema: S, query?: UserQuery) =>
    caller.call({
      method: "POST",
      override: true,
      route: route`/core/system/user/group/${idOf("groupId", groupId)}`,
      ...(query ? { query: odataParams(query) } : {}),
      decode: many(schema),
    });

  return {
    /** Get all users; OData options allowed (`$select` through `listFields`). */
    async list(query?: UserQuery) {
      return caller.call({
        method: "POST",
        override: true,
        route: users,
        query: odataParams(query),
        decode: many(UserRead),
      });
    },

    /** Get all users with `$select`: each user carries only the selected fields. */
    async listFields(select: Array<keyof UserRead & string>, query?: UserQuery) {
      return caller.call({
        method: "POST",
        override: true,
        route: users,
        query: odataParams({ ...query, select }),
        decode: many(UserRead.partial()),
      });
    },

    async get(userId: number) {
      return caller.call({ method: "POST", override: true, route: byId(userId), decode: one(UserRead) });
    },

    async listByGroup(groupId: number) {
      return byGroup(groupId, UserRead);
    },

    /**
     * The ids of a group's members: the same read as `listByGroup`, checked for ids only. A group
     * such as Everyone holds every user; a plan needs only who is in it. `query` narrows it (the
     * interface lists OData for the users list only: an instance may refuse it, or ignore it).
     */
    async memberIds(groupId: number, query?: UserQuery): Promise<number[]> {
      return (await byGroup(groupId, IdObject, query)).map((member) => member.Id);
    },

    /** Every user's contacts: one entry per user. A plain GET, as the seed lists it. */
    async listContacts() {
      return caller.call({
        method: "GET",
        route: route`/core/system/usercontact`,
        decode: many(ContactsRead),
      });
    },

    /** One user's contacts: the seed answers one envelope per contact. */
    async contactsOf(userId: number) {
      return caller.call({
        method: "GET",
        route: route`/core/system/usercontact/${idOf("userId", userId)}`,
        decode: many(ContactRead),
      });
    },

    /** The session user's tasks; the OData options travel in the body's `Value`. */
    async tasks(query?: ODataQuery) {
      return caller.call({
        method: "POST",
        override: true,
        route: route`/core/system/task`,
        json: { Value: odataText(query) },
        decode: many(TaskRead),
      });
    },

    /** Returns the new user's id. Not retried: a lost answer raises OutcomeUnknownError. */
    async create(request: CreateUserRequest): Promise<number> {
      scrubber.add(request.Password);
      return write({ method: "POST", route: users, json: request, decode: idOnly });
    },

    /** Send the whole user: omitted fields reset on the instance. Returns the user id. */
    async update(request: UpdateUserRequest): Promise<number> {
      return write({ method: "PUT", route: users, json: request, decode: idOnly });
    },

    async remove(userId: number): Promise<number> {
      return write({ method: "DELETE", route: byId(userId), decode: idOnly });
    },

    async activate(userId: number): Promise<number> {
      return write({
        method: "POST",
        route: route`/core/system/user/status/active/${idOf("userId", userId)}`,
        idempotent: true,
        decode: idOnly,
      });
    },

    async deactivate(userId: number): Promise<number> {
      return write({
        method: "POST",
        route: route`/core/system/user/status/inactive/${idOf("userId", userId)}`,
        idempotent: true,
        decode: idOnly,
      });
    },

    /** Adds to (`IsAdd: true`) or removes from a role; returns the role id. */
    async updateRoleMembership(request: UserRoleRequest): Promise<number> {
      return write({ method: "PUT", route: route`/core/system/userrole`, json: request, decode: idOnly });
    },

    /** Adds to (`IsAdd: true`) or removes from a group; returns the group id. */
    async updateGroupMembership(request: UserGroupRequest): Promise<number> {
      return write({ method: "PUT", route: route`/core/system/usergroup`, json: request, decode: idOnly });
    },

    async changePassword(request: ChangePasswordRequest): Promise<void> {
      scrubber.add(request.NewPassword);
      await caller.call({
        method: "PUT",
        route: route`/core/system/userpassword`,
        json: request,
        idempotent: false,
        decode: one(EmptyObject),
      });
    },
  };
}

export type UsersResource = ReturnType<typeof usersResource>;

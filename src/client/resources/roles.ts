import { Group, Role } from "../../wire/index.ts";
import { idOf } from "../args.ts";
import type { Caller } from "../caller.ts";
import { oneOrMany } from "../envelope.ts";
import { route } from "../route.ts";

/*
 * Role and membership reads. The seed lists none; hosted instances (and the emulator, with
 * integrations on) serve the role list and a user's roles and groups, and egp reads a user's roles
 * back with them. An instance without them answers 404, which the caller sees as NotFoundError.
 */

const RoleRead = Role.loose();
const GroupRead = Group.loose();

export function rolesResource(caller: Caller) {
  return {
    /** Every role of the instance. */
    async list() {
      return caller.call({
        method: "POST",
        override: true,
        route: route`/core/system/role`,
        decode: oneOrMany(RoleRead),
      });
    },

    /** The roles a user holds. */
    async ofUser(userId: number) {
      return caller.call({
        method: "POST",
        override: true,
        route: route`/core/system/role/user/${idOf("userId", userId)}`,
        decode: oneOrMany(RoleRead),
      });
    },

    /** The groups a user belongs to. */
    async groupsOfUser(userId: number) {
      return caller.call({
        method: "POST",
        override: true,
        route: route`/core/system/group/user/${idOf("userId", userId)}`,
        decode: oneOrMany(GroupRead),
      });
    },
  };
}

export type RolesResource = ReturnType<typeof rolesResource>;

import { Group } from "../../wire/index.ts";
import { idOf } from "../args.ts";
import type { Caller } from "../caller.ts";
import { one, oneOrMany } from "../envelope.ts";
import { type ODataQuery, odataParams } from "../odata.ts";
import { route } from "../route.ts";

/*
 * Groups. The seed lists no read of groups; real instances (and the emulator) serve `group` and
 * `group/<id>`, and egp resolves group names with the list. An instance without them answers 404,
 * which the caller sees as NotFoundError.
 */

const loose = Group.loose();

export function groupsResource(caller: Caller) {
  return {
    /** Every group, with OData options. */
    async list(query?: ODataQuery) {
      return caller.call({
        method: "POST",
        override: true,
        route: route`/core/system/group`,
        query: odataParams(query),
        decode: oneOrMany(loose),
      });
    },

    async get(groupId: number) {
      const at = route`/core/system/group/${idOf("groupId", groupId)}`;
      return caller.call({ method: "POST", override: true, route: at, decode: one(loose) });
    },
  };
}

export type GroupsResource = ReturnType<typeof groupsResource>;

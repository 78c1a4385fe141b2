import { ValuesListTree, ValuesListValueRead } from "../../wire/index.ts";
import { idOf } from "../args.ts";
import type { Caller } from "../caller.ts";
import { one, oneOrMany } from "../envelope.ts";
import { type ListQuery, odataParams } from "../odata.ts";
import { route } from "../route.ts";

/*
 * Values lists. Not in the seed: real instances (and the emulator) list a values list's values at
 * `valueslistvalue/flat/valueslist/<id>`, and as a tree at `valueslistvalue/valueslist/<id>`; a
 * field definition's `RelatedValuesListId` names the list.
 */

const loose = ValuesListValueRead.loose();
const tree = ValuesListTree.loose();

export function valuesListsResource(caller: Caller) {
  return {
    /** The list's values, in list order; OData options but `$select` allowed. */
    async values(valuesListId: number, query?: ListQuery) {
      const at = route`/core/system/valueslistvalue/flat/valueslist/${idOf("valuesListId", valuesListId)}`;
      return caller.call({
        method: "POST",
        override: true,
        route: at,
        query: odataParams(query),
        decode: oneOrMany(loose),
      });
    },

    /**
     * The list as a tree: top-level values, each with the values below it (`Depth` 0 at the top).
     * A value that only groups others has `IsSelectable: false`; a record can't hold it.
     */
    async tree(valuesListId: number) {
      const at = route`/core/system/valueslistvalue/valueslist/${idOf("valuesListId", valuesListId)}`;
      return caller.call({ method: "POST", override: true, route: at, decode: one(tree) });
    },
  };
}

export type ValuesListsResource = ReturnType<typeof valuesListsResource>;

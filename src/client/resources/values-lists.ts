import { ValuesListValueRead } from "../../wire/index.ts";
import { idOf } from "../args.ts";
import type { Caller } from "../caller.ts";
import { oneOrMany } from "../envelope.ts";
import { type ListQuery, odataParams } from "../odata.ts";
import { route } from "../route.ts";

/*
 * Values lists. Not in the seed: real instances (and the emulator) list a values list's values at
 * `valueslistvalue/flat/valueslist/<id>`; a field definition's `RelatedValuesListId` names the list.
 */

const loose = ValuesListValueRead.loose();

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
  };
}

export type ValuesListsResource = ReturnType<typeof valuesListsResource>;

import { ValuesListValueRead } from "../../wire/index.ts";
import { catalogueOf } from "../catalogue/model.ts";
import { presentValuesListValues, valuesListIdOf } from "../catalogue/present.ts";
import { notFound } from "../failure.ts";
import { fieldKinds } from "../odata-fields.ts";
import { pathId } from "../path-id.ts";
import type { Routes } from "../router.ts";

/*
 * Values lists: `valueslistvalue/flat/valueslist/<id>` answers a list's values, one envelope each,
 * in list order. The seed lists no such read; real instances serve it, and a field definition's
 * `RelatedValuesListId` names the list (docs/emulator.md, "Groups, field definitions and values
 * lists").
 */

const VALUE_FIELDS = fieldKinds(ValuesListValueRead);

export function registerValuesLists(routes: Routes): void {
  routes.list(
    "/core/system/valueslistvalue/flat/valueslist/:valuesListId",
    ({ store, params }) => {
      const id = pathId(params, "valuesListId");
      const field = catalogueOf(store).field(id);
      if (!field || valuesListIdOf(field) !== id) throw notFound("ValuesList", id);
      return presentValuesListValues(field);
    },
    VALUE_FIELDS,
  );
}

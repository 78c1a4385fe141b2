import { ValuesListValueRead } from "../../wire/index.ts";
import type { FieldRecord } from "../catalogue/model.ts";
import { catalogueOf } from "../catalogue/model.ts";
import { presentValuesListTree, presentValuesListValues, valuesListIdOf } from "../catalogue/present.ts";
import { ok } from "../envelope.ts";
import { notFound } from "../failure.ts";
import { fieldKinds } from "../odata-fields.ts";
import { pathId } from "../path-id.ts";
import type { RouteContext, Routes } from "../router.ts";

/*
 * Values lists: `valueslistvalue/flat/valueslist/<id>` answers a list's values, one envelope each,
 * in list order; `valueslistvalue/valueslist/<id>` answers the same values as a tree in one
 * envelope (`RequestedObject.Children`). The seed lists no such read; real instances serve it, and a field definition's
 * `RelatedValuesListId` names the list (docs/emulator.md, "Groups, field definitions and values
 * lists").
 */

const VALUE_FIELDS = fieldKinds(ValuesListValueRead);

/** The values-list field whose list the path names, or 404. */
function listField({ store, params }: RouteContext): FieldRecord {
  const id = pathId(params, "valuesListId");
  const field = catalogueOf(store).field(id);
  if (!field || valuesListIdOf(field) !== id) throw notFound("ValuesList", id);
  return field;
}

export function registerValuesLists(routes: Routes): void {
  routes.list(
    "/core/system/valueslistvalue/flat/valueslist/:valuesListId",
    (ctx) => presentValuesListValues(listField(ctx)),
    VALUE_FIELDS,
  );
  routes.read(
    "/core/system/valueslistvalue/valueslist/:valuesListId",
    (ctx) => ok(presentValuesListTree(listField(ctx))),
    { integration: true },
  );
}

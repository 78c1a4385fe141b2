import type { Group } from "../../wire/index.ts";
import { guidFor } from "../catalogue/guid.ts";
import { ok } from "../envelope.ts";
import { notFound } from "../failure.ts";
import type { FieldKind } from "../odata.ts";
import { pathId } from "../path-id.ts";
import type { Routes } from "../router.ts";
import type { NamedRecord } from "../store.ts";
import { namedIn, pathUser } from "./roles.ts";

/*
 * Group reads: `group` (all, with OData options, as the user list takes them), `group/<id>`, and a
 * user's groups, `group/user/<userid>`.
 * The seed lists no read of groups; real instances serve both, and clients resolve group names
 * with them (docs/emulator.md, "Groups, field definitions and values lists").
 */

const GROUP_FIELDS: Readonly<Record<keyof Group, FieldKind>> = {
  Id: "number",
  Name: "string",
  DisplayName: "string",
  Description: "string",
  Guid: "string",
  UpdateInformation: "object",
};

/**
 * The emulator stores a group's id and name: `DisplayName` is the name, and the GUID is derived
 * from it, stable across restarts.
 */
function presentGroup(record: NamedRecord): Group {
  return {
    Id: record.Id,
    Name: record.Name,
    DisplayName: record.Name,
    Description: null,
    Guid: guidFor(`egp-group:${record.Name}`),
    UpdateInformation: null,
  };
}

export function registerGroups(routes: Routes): void {
  routes.list(
    "/core/system/group",
    ({ store }) =>
      Object.values(store.data.groups)
        .sort((a, b) => a.Id - b.Id)
        .map(presentGroup),
    GROUP_FIELDS,
  );

  // A user's groups: beyond the description, with integrations on, like the role reads.
  routes.list(
    "/core/system/group/user/:userId",
    (ctx) => namedIn(ctx.store.data.groups, pathUser(ctx).groups).map(presentGroup),
    GROUP_FIELDS,
    { integration: true },
  );

  routes.read("/core/system/group/:groupId", ({ store, params }) => {
    const id = pathId(params, "groupId");
    const record = store.group(id);
    if (!record) throw notFound("Group", id);
    return ok(presentGroup(record));
  });
}

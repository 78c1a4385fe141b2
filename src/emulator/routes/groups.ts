import type { Group } from "../../wire/index.ts";
import { guidFor } from "../catalogue/guid.ts";
import { ok } from "../envelope.ts";
import { notFound } from "../failure.ts";
import type { FieldKind } from "../odata.ts";
import { pathId } from "../path-id.ts";
import type { Routes } from "../router.ts";
import type { NamedRecord } from "../store.ts";

/*
 * Group reads: `group` (all, with OData options, as the user list takes them) and `group/<id>`; a
 * user's groups are read with the role reads (roles.ts).
 * The seed lists no read of groups; real instances serve both, and clients resolve group names
 * with them (docs/emulator.md, "Groups, field definitions and values lists").
 */

export const GROUP_FIELDS: Readonly<Record<keyof Group, FieldKind>> = {
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
export function presentGroup(record: NamedRecord): Group {
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

  routes.read("/core/system/group/:groupId", ({ store, params }) => {
    const id = pathId(params, "groupId");
    const record = store.group(id);
    if (!record) throw notFound("Group", id);
    return ok(presentGroup(record));
  });
}

import type { Role } from "../../wire/index.ts";
import { guidFor } from "../catalogue/guid.ts";
import { ok } from "../envelope.ts";
import { notFound } from "../failure.ts";
import type { FieldKind } from "../odata.ts";
import { pathId } from "../path-id.ts";
import type { RouteContext, Routes } from "../router.ts";
import type { NamedRecord, Store, UserRecord } from "../store.ts";
import { GROUP_FIELDS, presentGroup } from "./groups.ts";

/*
 * Role and membership reads, beyond the interface description: `role` (all, with OData options),
 * `role/<id>`, a user's roles, `role/user/<userid>`, and a user's groups, `group/user/<userid>`.
 * Hosted instances serve them and integrations read a user's roles with them; they are read-only
 * here, as the description's only role call is the membership change (`userrole`). Served with
 * integrations on, like the other surfaces beyond the description, and not in the foreign profile,
 * which stands for an instance that lacks them (docs/emulator.md, "Roles and memberships").
 */

export const ROLE_FIELDS: Readonly<Record<keyof Role, FieldKind>> = {
  Id: "number",
  Name: "string",
  Description: "string",
  Guid: "string",
  UpdateInformation: "object",
};

/**
 * The emulator stores a role's id and name: the GUID is derived from the name, stable across
 * restarts, and the rest is null, as for groups.
 */
function presentRole(record: NamedRecord): Role {
  return {
    Id: record.Id,
    Name: record.Name,
    Description: null,
    Guid: guidFor(`egp-role:${record.Name}`),
    UpdateInformation: null,
  };
}

/** The user the path names, or 404. */
function pathUser({ store, params }: RouteContext): UserRecord {
  const id = pathId(params, "userId");
  const user = store.data.users[String(id)];
  if (!user) throw notFound("User", id);
  return user;
}

/** Named records of `ids` that exist, in id order. */
function namedIn(records: Record<string, NamedRecord>, ids: readonly number[]): NamedRecord[] {
  return [...new Set(ids)].flatMap((id) => records[String(id)] ?? []).sort((a, b) => a.Id - b.Id);
}

function allRoles(store: Store): NamedRecord[] {
  return Object.values(store.data.roles).sort((a, b) => a.Id - b.Id);
}

export function registerRoles(routes: Routes): void {
  const options = { integration: true } as const;
  routes.list("/core/system/role", ({ store }) => allRoles(store).map(presentRole), ROLE_FIELDS, options);
  routes.list(
    "/core/system/role/user/:userId",
    (ctx) => namedIn(ctx.store.data.roles, pathUser(ctx).roles).map(presentRole),
    ROLE_FIELDS,
    options,
  );
  routes.list(
    "/core/system/group/user/:userId",
    (ctx) => namedIn(ctx.store.data.groups, pathUser(ctx).groups).map(presentGroup),
    GROUP_FIELDS,
    options,
  );
  routes.read(
    "/core/system/role/:roleId",
    ({ store, params }) => {
      const id = pathId(params, "roleId");
      const record = store.role(id);
      if (!record) throw notFound("Role", id);
      return ok(presentRole(record));
    },
    options,
  );
}

import { z } from "zod";
import { UpdateInformation } from "./user.ts";

/*
 * Roles (`core/system/role`, `core/system/role/<id>`, and a user's roles, `core/system/role/user/<id>`).
 * The seed lists no read of roles; hosted instances serve these, and integrations read a user's
 * roles with them. egp reads them back to see role assignments drift.
 */

export const Role = z.object({
  Id: z.number().int(),
  Name: z.string(),
  Description: z.string().nullable(),
  Guid: z.string(),
  UpdateInformation: UpdateInformation.nullable(),
});
export type Role = z.infer<typeof Role>;

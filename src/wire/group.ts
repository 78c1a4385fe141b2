import { z } from "zod";
import { UpdateInformation } from "./user.ts";

/*
 * Groups (`core/system/group`, `core/system/group/<id>`). The seed lists no read of groups; real
 * instances serve these two, and public clients use them to turn group names into ids.
 */

export const Group = z.object({
  Id: z.number().int(),
  Name: z.string(),
  /** Real instances answer it beside `Name`; optional so that a group read without it still parses. */
  DisplayName: z.string().optional(),
  Description: z.string().nullable(),
  Guid: z.string(),
  UpdateInformation: UpdateInformation.nullable(),
});
export type Group = z.infer<typeof Group>;

import { z } from "zod";

/*
 * The Content API (`/contentapi/`), beyond the interface description: the OData service real
 * instances serve beside the REST interface. Answers are OData JSON: the service document lists
 * one entity set per level (named by the level's alias); a read of a set, or of one record by key,
 * answers a `value` array of entities keyed by field alias, with `<Level_Alias>_Id` the record id.
 */

export const ContentApiEntitySet = z.object({
  name: z.string(),
  kind: z.string(),
  url: z.string(),
});
export type ContentApiEntitySet = z.infer<typeof ContentApiEntitySet>;

export const ContentApiServiceDocument = z.object({
  "@odata.context": z.string().optional(),
  value: z.array(ContentApiEntitySet.loose()),
});
export type ContentApiServiceDocument = z.infer<typeof ContentApiServiceDocument>;

/** One record: field aliases to values (values lists as arrays of value names). */
export const ContentApiEntity = z.record(z.string(), z.unknown());
export type ContentApiEntity = z.infer<typeof ContentApiEntity>;

export const ContentApiCollection = z.object({
  "@odata.context": z.string().optional(),
  value: z.array(ContentApiEntity),
});
export type ContentApiCollection = z.infer<typeof ContentApiCollection>;

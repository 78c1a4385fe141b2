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

const isEntity = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * One record: field aliases to values (values lists as arrays of value names). Checked as an
 * object and kept as parsed: a record schema would copy every entity of every page, which a plan
 * of a level of 50,000 records paid on its critical path between one page and the next.
 */
export const ContentApiEntity = z.custom<Record<string, unknown>>(isEntity, "must be an object");
export type ContentApiEntity = z.infer<typeof ContentApiEntity>;

export const ContentApiCollection = z.object({
  "@odata.context": z.string().optional(),
  value: z.array(ContentApiEntity),
});
export type ContentApiCollection = z.infer<typeof ContentApiCollection>;

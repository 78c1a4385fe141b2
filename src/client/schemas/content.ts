import { z } from "zod";

const int = z.number().int();

export const ValuesListContent = z.object({ ValuesListIds: z.array(int), OtherText: z.string().nullable() });
export type ValuesListContent = z.infer<typeof ValuesListContent>;

/** `Value` depends on `Type`; the seed shows only Numeric, Values List and Related Records. */
export const FieldContent = z.object({
  Type: int,
  Value: z.unknown(),
  FieldId: int,
  Tag: z.string().optional(),
});
export type FieldContent = z.infer<typeof FieldContent>;

export const ContentRecord = z.object({
  Id: int.optional(),
  LevelId: int,
  FieldContents: z.record(z.string(), FieldContent),
  Version: z.string().optional(),
});
export type ContentRecord = z.infer<typeof ContentRecord>;

/** PUT body; `SubformFieldId` only when sub-form content is saved. */
export const ContentWrapper = z.object({
  Content: ContentRecord.extend({ Id: int }),
  SubformFieldId: int.optional(),
});
export type ContentWrapper = z.infer<typeof ContentWrapper>;

export const FieldContentRequest = z.object({ FieldIds: z.array(int), ContentIds: z.array(int) });
export type FieldContentRequest = z.infer<typeof FieldContentRequest>;

export const DataGatewayRequest = z.object({
  Alias: z.string(),
  ContentPartIds: z.array(z.string()).min(1),
  ExternalFieldIds: z.array(z.string()).min(1),
});
export type DataGatewayRequest = z.infer<typeof DataGatewayRequest>;

/**
 * The seed shows no body for content reads and the history log: the client checks that each item
 * is an object and passes every field through.
 */
export const ContentRead = z.looseObject({});
export type ContentRead = z.infer<typeof ContentRead>;

export const HistoryEntry = z.looseObject({});
export type HistoryEntry = z.infer<typeof HistoryEntry>;

import { z } from "zod";
import { ContentRecord } from "../../wire/index.ts";

/*
 * The request shapes are the interface's own (src/wire/content.ts). The reads and the history log
 * are kept loose: the seed shows no body for them, so every field an instance sends passes through.
 */

export type {
  ContentWrapper,
  CrossReferenceContent,
  CrossReferenceItem,
  DataGatewayRequest,
  FieldContent,
  FieldContentRequest,
  ValuesListContent,
} from "../../wire/index.ts";

/** POST body: a record, with `SubformFieldId` when it is sub-form content (the seed's rule). */
export const ContentPost = ContentRecord.extend({ SubformFieldId: z.number().int().optional() });
export type ContentPost = z.infer<typeof ContentPost>;

/**
 * A record as the reads return it: everything the instance sends passes through. The ids are typed
 * where present, `SequentialId` (the record's number within its application) among them; none is
 * required, as the seed shows no read body.
 */
export const ContentRead = z.looseObject({
  Id: z.number().int().optional(),
  LevelId: z.number().int().optional(),
  SequentialId: z.number().int().optional(),
});
export type ContentRead = z.infer<typeof ContentRead>;

export const HistoryEntry = z.looseObject({});
export type HistoryEntry = z.infer<typeof HistoryEntry>;

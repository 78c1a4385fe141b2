import { z } from "zod";
import { ContentRecord } from "../../wire/index.ts";

/*
 * The request shapes are the interface's own (src/wire/content.ts). The reads and the history log
 * are kept loose: the seed shows no body for them, so every field an instance sends passes through.
 */

export type {
  ContentWrapper,
  DataGatewayRequest,
  FieldContent,
  FieldContentRequest,
  ValuesListContent,
} from "../../wire/index.ts";

/** POST body: a record, with `SubformFieldId` when it is sub-form content (the seed's rule). */
export const ContentPost = ContentRecord.extend({ SubformFieldId: z.number().int().optional() });
export type ContentPost = z.infer<typeof ContentPost>;

/**
 * A record as the reads return it. Beyond `Id` and `LevelId`, it passes through what the instance
 * sends; `SequentialId` (the record's number within its application) is typed where present.
 */
export const ContentRead = z.looseObject({
  Id: z.number().int(),
  LevelId: z.number().int(),
  SequentialId: z.number().int().optional(),
});
export type ContentRead = z.infer<typeof ContentRead>;

export const HistoryEntry = z.looseObject({});
export type HistoryEntry = z.infer<typeof HistoryEntry>;

import { z } from "zod";
import {
  ContentRecord,
  HistoryEntry as WireHistoryEntry,
  ContentRead as WireRead,
} from "../../wire/index.ts";

/*
 * The request shapes are the interface's own (src/wire/content.ts). The reads and the history log
 * are kept loose: the seed shows no body for them, so every field an instance sends passes through.
 */

export type {
  AttachmentWrapper,
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
 * A record as the reads return it: the wire's ids, each typed where present (`SequentialId`, the
 * record's number within its application, among them), none required, as the seed shows no read
 * body; everything else the instance sends passes through.
 */
export const ContentRead = WireRead.pick({ Id: true, LevelId: true, SequentialId: true }).partial().loose();
export type ContentRead = z.infer<typeof ContentRead>;

/** A history entry as the client passes it on: no field of the wire's entry is required. */
export const HistoryEntry = WireHistoryEntry.pick({}).loose();
export type HistoryEntry = z.infer<typeof HistoryEntry>;

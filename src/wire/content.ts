import { z } from "zod";
import { UpdateInformation } from "./user.ts";

/*
 * The content segment: content records and their field contents, the PUT wrapper, attachments,
 * history log content, the data gateway body and the workflow action result. The seed shows the
 * value shapes of types 2, 4 and 23 only; type 9 follows real instances; the others are the
 * emulator's choices, listed in docs/emulator.md ("Content, attachments and workflow").
 */

const int = z.number().int();

/** Type 4 (Values List). */
export const ValuesListContent = z.object({
  ValuesListIds: z.array(int),
  OtherText: z.string().nullable(),
});
export type ValuesListContent = z.infer<typeof ValuesListContent>;

/** Type 8 (Record Permissions, User/Groups List): users and groups by id. */
export const UsersGroupsContent = z.object({
  UserList: z.array(z.object({ Id: int })),
  GroupList: z.array(z.object({ Id: int })),
});
export type UsersGroupsContent = z.infer<typeof UsersGroupsContent>;

/** One entry of a type 7 (External Links) value. */
export const ExternalLink = z.object({ Name: z.string(), URL: z.string() });
export type ExternalLink = z.infer<typeof ExternalLink>;

/**
 * One record of a type 9 (Cross-Reference) value, as real instances read it back and public clients
 * send it: `[{ContentId: 212724, LevelId: 34}]`. Type 23 (Related Records) stays bare ids (seed).
 */
export const CrossReferenceItem = z.object({ ContentId: int, LevelId: int });
export type CrossReferenceItem = z.infer<typeof CrossReferenceItem>;

/** Type 9 (Cross-Reference): the records it points at. */
export const CrossReferenceContent = z.array(CrossReferenceItem);
export type CrossReferenceContent = z.infer<typeof CrossReferenceContent>;

/** One checked cell of a type 16 (Matrix) value. */
export const MatrixCell = z.object({ Row: z.string(), Column: z.string() });
export type MatrixCell = z.infer<typeof MatrixCell>;

/** A field-content object: `Value`'s shape depends on `Type`. */
export const FieldContent = z.object({
  Type: int,
  Value: z.unknown(),
  FieldId: int,
  Tag: z.string().optional(),
});
export type FieldContent = z.infer<typeof FieldContent>;

/** A content record as a POST sends it (and as the wrapper's `Content`). */
export const ContentRecord = z.object({
  Id: int.optional(),
  LevelId: int,
  /** Field id (as a string key) → field content. */
  FieldContents: z.record(z.string(), FieldContent),
  Version: z.string().optional(),
});
export type ContentRecord = z.infer<typeof ContentRecord>;

/** PUT body: `SubformFieldId` present for sub-form content, omitted otherwise. */
export const ContentWrapper = z.object({
  Content: ContentRecord,
  SubformFieldId: int.optional(),
});
export type ContentWrapper = z.infer<typeof ContentWrapper>;

/** A content record as the reads return it. */
export const ContentRead = z.object({
  Id: int,
  LevelId: int,
  /**
   * The record's number within its application (1, 2, …). Real instances return it; the seed does
   * not list it, so a client reading an instance without it still parses the record.
   */
  SequentialId: int.optional(),
  Version: z.string().optional(),
  FieldContents: z.record(z.string(), FieldContent),
  UpdateInformation: UpdateInformation.optional(),
});
export type ContentRead = z.infer<typeof ContentRead>;

/** Body of the field-content read: the named fields of every record named; no field ids: all fields. */
export const FieldContentRequest = z.object({
  FieldIds: z.array(int),
  ContentIds: z.array(int).min(1),
});
export type FieldContentRequest = z.infer<typeof FieldContentRequest>;

/** Body of the data gateway call (`externalContentChangeNotification`). */
export const DataGatewayRequest = z.object({
  Alias: z.string(),
  ContentPartIds: z.array(z.string()).min(1),
  ExternalFieldIds: z.array(z.string()).min(1),
});
export type DataGatewayRequest = z.infer<typeof DataGatewayRequest>;

/** Attachment post body and attachment read result. */
export const AttachmentWrapper = z.object({
  AttachmentName: z.string(),
  /** Base64 of the file's bytes. */
  AttachmentBytes: z.string(),
  /** true: stored encrypted at rest. */
  IsSensitive: z.boolean().optional(),
});
export type AttachmentWrapper = z.infer<typeof AttachmentWrapper>;

/** One changed field in a history entry. */
export const HistoryChange = z.object({
  FieldId: int,
  FieldName: z.string(),
  OldValue: z.unknown(),
  NewValue: z.unknown(),
});
export type HistoryChange = z.infer<typeof HistoryChange>;

export const HistoryAction = {
  Created: "Created",
  Updated: "Updated",
  ExternalChange: "ExternalChange",
} as const;
export type HistoryAction = (typeof HistoryAction)[keyof typeof HistoryAction];

/** One save that changed a field a history log tracks. */
export const HistoryEntry = z.object({
  Id: int,
  Date: z.string(),
  UserId: int,
  UserName: z.string().nullable(),
  Action: z.enum(["Created", "Updated", "ExternalChange"]),
  Changes: z.array(HistoryChange),
});
export type HistoryEntry = z.infer<typeof HistoryEntry>;

/** The history call's item: one history-log field's content for a record, newest entry first. */
export const HistoryLogContent = z.object({
  ContentId: int,
  FieldId: int,
  FieldName: z.string(),
  Entries: z.array(HistoryEntry),
});
export type HistoryLogContent = z.infer<typeof HistoryLogContent>;

export const WorkflowTransition = z.object({
  WorkflowTransitionId: z.string(),
  WorkflowTransitionName: z.string(),
  CompletionCode: int,
});
export type WorkflowTransition = z.infer<typeof WorkflowTransition>;

/** `RequestedObject` of the workflow action read. */
export const WorkflowActionResult = z.object({
  WorkflowNodeId: z.string(),
  WorkflowNodeName: z.string(),
  JobStatus: z.string(),
  Actions: z.array(WorkflowTransition),
});
export type WorkflowActionResult = z.infer<typeof WorkflowActionResult>;

/** Job statuses the emulator uses (the seed shows none). */
export const JobStatus = { Active: "Active", Completed: "Completed" } as const;
export type JobStatus = (typeof JobStatus)[keyof typeof JobStatus];

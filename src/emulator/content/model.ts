import type { FieldContent, HistoryEntry, UpdateInformation } from "../../wire/index.ts";
import { type Catalogue, catalogueOf } from "../catalogue/model.ts";
import type { Store } from "../store.ts";
import { CROSS_REFERENCE_SHAPE, upgradeCrossReferences } from "./upgrade.ts";

/*
 * The content segment's state, in `store.data.content` (plain JSON, persisted by `--data`):
 * records, attachments, history-log fields and workflows. Ids of records, attachments and history
 * entries come from the store's counters.
 */

/** A record as stored; `FieldContents` holds only fields that have a value. */
export interface StoredRecord {
  Id: number;
  LevelId: number;
  /**
   * The record's number within its application (1, 2, …), from the application's own counter, so
   * it is never reused. Absent in data files written before it existed: `contentOf` fills it in.
   */
  SequentialId?: number;
  /** Incremented by every save, as a string (the seed types it so). */
  Version: string;
  FieldContents: Record<string, FieldContent>;
  /** The user who created the record: it can always read it. */
  OwnerId: number;
  UpdateInformation: UpdateInformation;
  /** History-log field id → entries, oldest first. */
  History: Record<string, HistoryEntry[]>;
  /** The record's workflow job, when its level has a workflow. */
  Workflow: { NodeId: string; JobStatus: string } | null;
}

export interface StoredAttachment {
  Id: number;
  Name: string;
  IsSensitive: boolean;
  /** Size of the plain bytes. */
  Size: number;
  ContentType: string | null;
  OwnerId: number;
  CreateDate: string;
  /** Base64 of the bytes, or of the AES-256-GCM ciphertext when sensitive. */
  Data: string;
  /** Sensitive only: base64 IV and authentication tag, and which key encrypted it. */
  Iv?: string;
  AuthTag?: string;
  KeyId?: string;
}

/**
 * A history-log field. The seed's type table has no code for it, and package files carry only
 * those codes, so it lives here rather than in the metadata catalogue; its id comes from the
 * catalogue's field counter so that it never collides with a field id.
 */
export interface HistoryFieldRecord {
  Id: number;
  LevelId: number;
  Name: string;
  /** The fields whose changes this log records. */
  TrackedFieldIds: number[];
}

export interface WorkflowTransitionRecord {
  Id: string;
  Name: string;
  CompletionCode: number;
  ToNodeId: string;
  /** Roles that see this action; empty: everyone who can read the record. */
  RoleIds: number[];
}

export interface WorkflowNodeRecord {
  Id: string;
  Name: string;
  JobStatus: string;
  Transitions: WorkflowTransitionRecord[];
}

export interface WorkflowRecord {
  LevelId: number;
  Name: string;
  StartNodeId: string;
  Nodes: WorkflowNodeRecord[];
}

export interface ContentData {
  records: Record<string, StoredRecord>;
  attachments: Record<string, StoredAttachment>;
  historyFields: Record<string, HistoryFieldRecord>;
  /** Level id → workflow. */
  workflows: Record<string, WorkflowRecord>;
  /** Hex AES-256 key generated for sensitive files when the environment gives none. */
  generatedKey: string | null;
  /** Module id → the last `SequentialId` given in it. */
  sequences?: Record<string, number>;
  /** Absent in data files whose type 9 values are bare ids: `contentOf` upgrades them. */
  crossReferenceShape?: typeof CROSS_REFERENCE_SHAPE;
}

export function emptyContent(): ContentData {
  return {
    records: {},
    attachments: {},
    historyFields: {},
    workflows: {},
    generatedKey: null,
    sequences: {},
    crossReferenceShape: CROSS_REFERENCE_SHAPE,
  };
}

/** The store's content state, created empty on first use. */
export function contentOf(store: Store): ContentData {
  let data = store.data.content as ContentData | undefined;
  if (!data) {
    data = emptyContent();
    store.data.content = data;
  }
  if (!data.sequences) numberRecords(store, data);
  if (data.crossReferenceShape !== CROSS_REFERENCE_SHAPE) upgradeCrossReferences(data, catalogueOf(store));
  return data;
}

/** Gives records of a data file written before `SequentialId` existed their numbers, in id order. */
function numberRecords(store: Store, data: ContentData): void {
  const catalogue = catalogueOf(store);
  data.sequences = {};
  for (const record of allRecords(data)) {
    if (record.SequentialId === undefined)
      record.SequentialId = nextSequentialId(data, catalogue, record.LevelId);
  }
}

/** The next number in the application of `levelId` (module 0 when the level is unknown). */
export function nextSequentialId(data: ContentData, catalogue: Catalogue, levelId: number): number {
  const sequences = data.sequences ?? {};
  data.sequences = sequences;
  const key = String(catalogue.level(levelId)?.ModuleId ?? 0);
  const next = (sequences[key] ?? 0) + 1;
  sequences[key] = next;
  return next;
}

export function recordOf(content: ContentData, id: number): StoredRecord | undefined {
  return content.records[String(id)];
}

export function allRecords(content: ContentData): StoredRecord[] {
  return Object.values(content.records).sort((a, b) => a.Id - b.Id);
}

export function historyFieldsOf(content: ContentData, levelId: number): HistoryFieldRecord[] {
  return Object.values(content.historyFields)
    .filter((f) => f.LevelId === levelId)
    .sort((a, b) => a.Id - b.Id);
}

export function workflowOf(content: ContentData, levelId: number): WorkflowRecord | undefined {
  return content.workflows[String(levelId)];
}

import {
  HistoryAction as Action,
  type FieldContent,
  type HistoryAction,
  type HistoryChange,
  type HistoryLogContent,
} from "../../wire/index.ts";
import type { Catalogue } from "../catalogue/model.ts";
import type { Store } from "../store.ts";
import { type ContentData, historyFieldsOf, type StoredRecord } from "./model.ts";

/*
 * History logs. Each history-log field of a level tracks some of its fields; a save that changes
 * one of them appends an entry to that log, naming the changes. The history call answers one item
 * per history-log field of the record's level (none when the level has no such field); a log
 * with no entries is an item with an empty `Entries`.
 */

type Contents = Readonly<Record<string, FieldContent>>;

function fieldValue(contents: Contents, fieldId: number): unknown {
  return contents[String(fieldId)]?.Value ?? null;
}

/** Changes of the tracked fields between two versions of a record's contents. */
function changesOf(
  catalogue: Catalogue,
  tracked: readonly number[],
  before: Contents,
  after: Contents,
  action: HistoryAction,
  named: ReadonlySet<number> | undefined,
): HistoryChange[] {
  const changes: HistoryChange[] = [];
  for (const fieldId of tracked) {
    const oldValue = fieldValue(before, fieldId);
    const newValue = fieldValue(after, fieldId);
    // An external change keeps the values; it records the fields the notification named.
    const changed =
      action === Action.ExternalChange
        ? (named?.has(fieldId) ?? false)
        : JSON.stringify(oldValue) !== JSON.stringify(newValue);
    if (!changed) continue;
    const FieldName = catalogue.field(fieldId)?.Name ?? String(fieldId);
    changes.push({ FieldId: fieldId, FieldName, OldValue: oldValue, NewValue: newValue });
  }
  return changes;
}

export interface SaveEvent {
  action: HistoryAction;
  userId: number;
  before: Contents;
  /** External changes: the fields the notification named. */
  named?: ReadonlySet<number>;
}

/** Appends an entry to every history log of the record's level that tracks a changed field. */
export function logSave(
  store: Store,
  content: ContentData,
  catalogue: Catalogue,
  record: StoredRecord,
  event: SaveEvent,
): void {
  const date = store.isoNow();
  const userName = store.user(event.userId)?.user.UserName ?? null;
  for (const log of historyFieldsOf(content, record.LevelId)) {
    const changes = changesOf(
      catalogue,
      log.TrackedFieldIds,
      event.before,
      record.FieldContents,
      event.action,
      event.named,
    );
    if (changes.length === 0) continue;
    const entries = record.History[String(log.Id)] ?? [];
    entries.push({
      Id: store.nextId("historyEntry"),
      Date: date,
      UserId: event.userId,
      UserName: userName,
      Action: event.action,
      Changes: changes,
    });
    record.History[String(log.Id)] = entries;
  }
}

/** The history call's answer for a record: one item per history-log field, newest entry first. */
export function presentHistory(content: ContentData, record: StoredRecord): HistoryLogContent[] {
  return historyFieldsOf(content, record.LevelId).map((log) => ({
    ContentId: record.Id,
    FieldId: log.Id,
    FieldName: log.Name,
    Entries: [...(record.History[String(log.Id)] ?? [])].reverse(),
  }));
}

import { type DataGatewayRequest, HistoryAction, type ValidationMessage } from "../../wire/index.ts";
import { catalogueOf } from "../catalogue/model.ts";
import { HttpFailure, message } from "../failure.ts";
import type { Store } from "../store.ts";
import { logSave } from "./history.ts";
import { contentOf, recordOf, type StoredRecord } from "./model.ts";
import { canRead } from "./permissions.ts";
import { touch } from "./write-record.ts";

/*
 * The data gateway (`externalContentChangeNotification`): an external data storage says that some
 * fields of some records changed there. The emulator holds no external storage, so "the external
 * fields" are fields of the named records' levels, named by id. The call checks every id, then
 * saves each record (new Version, UpdateInformation, an `ExternalChange` entry in the history logs
 * tracking a named field) and answers one validation message reporting success; a failure answers
 * 400 with a message per problem and saves nothing. `Alias`, whose meaning the seed does not show,
 * must be non-empty and is quoted in the answer.
 */

function decimal(text: string): number | undefined {
  return /^\s*\d{1,15}\s*$/.test(text) && Number(text) > 0 ? Number(text) : undefined;
}

function problem(key: string, description: string, erroredValue: unknown): ValidationMessage {
  return message(key, description, { erroredValue });
}

function recordsOf(store: Store, userId: number, ids: readonly string[], messages: ValidationMessage[]) {
  const content = contentOf(store);
  const records = new Map<number, StoredRecord>();
  for (const [index, raw] of ids.entries()) {
    const id = decimal(raw);
    const record = id === undefined ? undefined : recordOf(content, id);
    if (!record || !canRead(store, userId, record)) {
      messages.push(
        problem(
          "ContentNotFound",
          `ContentPartIds.${index}: '${raw.slice(0, 40)}' is not the id of a content record this user can read.`,
          raw.slice(0, 40),
        ),
      );
    } else {
      records.set(record.Id, record);
    }
  }
  return [...records.values()];
}

function fieldsOf(
  store: Store,
  records: readonly StoredRecord[],
  ids: readonly string[],
  messages: ValidationMessage[],
) {
  const catalogue = catalogueOf(store);
  const levels = new Set(records.map((r) => r.LevelId));
  const fields = new Set<number>();
  for (const [index, raw] of ids.entries()) {
    const id = decimal(raw);
    const field = id === undefined ? undefined : catalogue.field(id);
    if (!field || !levels.has(field.LevelId)) {
      messages.push(
        problem(
          "ExternalFieldNotFound",
          `ExternalFieldIds.${index}: '${raw.slice(0, 40)}' is not a field of the named records' levels.`,
          raw.slice(0, 40),
        ),
      );
    } else {
      fields.add(field.Id);
    }
  }
  return fields;
}

/** Checks and saves; returns the success message, or throws a 400 listing every problem. */
export function externalChange(store: Store, userId: number, request: DataGatewayRequest): ValidationMessage {
  const messages: ValidationMessage[] = [];
  const alias = request.Alias.trim();
  if (alias === "") messages.push(problem("AliasRequired", "Alias: must not be empty.", request.Alias));
  const records = recordsOf(store, userId, request.ContentPartIds, messages);
  const fields = fieldsOf(store, records, request.ExternalFieldIds, messages);
  if (messages.length > 0) throw new HttpFailure(400, messages);

  const content = contentOf(store);
  const catalogue = catalogueOf(store);
  for (const record of records) {
    touch(store, record, userId);
    logSave(store, content, catalogue, record, {
      action: HistoryAction.ExternalChange,
      userId,
      before: record.FieldContents,
      named: fields,
    });
  }
  store.changed();
  const ids = records.map((r) => r.Id).join(", ");
  return {
    ...message(
      "ExternalContentSaved",
      `Saved ${records.length} content record(s) (${ids}) for ${fields.size} external field(s) of '${alias}'.`,
      { reason: "Information" },
    ),
    Severity: 1,
  };
}

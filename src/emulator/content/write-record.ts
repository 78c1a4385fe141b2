import {
  type CrossReferenceItem,
  type FieldContent,
  FieldType,
  HistoryAction,
  type ValidationMessage,
} from "../../wire/index.ts";
import { type Catalogue, catalogueOf, type LevelRecord } from "../catalogue/model.ts";
import { badRequest, forbidden, HttpFailure, message } from "../failure.ts";
import type { Store } from "../store.ts";
import type { SaveInput } from "./bodies.ts";
import { checkValue, keyed, toId, type ValueLookups } from "./field-values.ts";
import { logSave } from "./history.ts";
import { type ContentData, contentOf, nextSequentialId, recordOf, type StoredRecord } from "./model.ts";
import { startJob } from "./workflow.ts";

/*
 * Create and update of content records (POST and PUT content), to the letter of the seed:
 * - POST of a record that exists is 403; PUT of a record that does not exist is 403;
 * - `SubformFieldId` is required for sub-form content and refused otherwise;
 * - every field content is checked against the level's fields by type code; a field that is not on
 *   the level, a wrong `Type`, a bad value and an empty required field are validation failures
 *   (400, all problems listed at once).
 * A PUT changes the fields it sends and keeps the others. Each save increments `Version`, stamps
 * `UpdateInformation` and appends to the history logs that track a changed field.
 */

export function lookupsFor(store: Store, content: ContentData, catalogue: Catalogue): ValueLookups {
  return {
    userExists: (id) => store.user(id) !== undefined,
    groupExists: (id) => store.group(id) !== undefined,
    recordLevel: (id) => recordOf(content, id)?.LevelId,
    moduleOfLevel: (levelId) => catalogue.level(levelId)?.ModuleId,
    attachmentExists: (id) => content.attachments[String(id)] !== undefined,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

interface Checked {
  /** Field id → new content, or null to clear the field. */
  changes: Map<string, FieldContent | null>;
  messages: ValidationMessage[];
}

function invalid(key: string, description: string, erroredValue?: unknown): ValidationMessage {
  return message(key, description, { erroredValue: erroredValue ?? null });
}

/** Checks one entry of `FieldContents`; pushes problems, returns the content or null to clear. */
function checkEntry(
  catalogue: Catalogue,
  lookups: ValueLookups,
  level: LevelRecord,
  key: string,
  raw: unknown,
  messages: ValidationMessage[],
): FieldContent | null | undefined {
  const where = `FieldContents.${key}`;
  const fieldId = toId(key);
  if (fieldId === undefined) {
    messages.push(invalid("InvalidFieldId", `${where}: the key must be a field id.`, key));
    return undefined;
  }
  if (!isObject(raw)) {
    messages.push(
      invalid("InvalidFieldContent", `${where}: must be an object with Type, Value and FieldId.`),
    );
    return undefined;
  }
  const field = catalogue.field(fieldId);
  if (!field) {
    messages.push(invalid("FieldNotFound", `${where}: field ${fieldId} does not exist.`, fieldId));
    return undefined;
  }
  if (field.LevelId !== level.Id) {
    messages.push(
      invalid(
        "FieldNotOnLevel",
        `${where}: field ${fieldId} (${field.Name}) is not a field of level ${level.Id} (${level.Name}).`,
        fieldId,
      ),
    );
    return undefined;
  }
  const named = keyed(raw, "FieldId");
  if (named !== undefined && named !== null && toId(named) !== fieldId) {
    messages.push(
      invalid("FieldIdMismatch", `${where}: FieldId ${String(named)} differs from the key.`, named),
    );
    return undefined;
  }
  const type = keyed(raw, "Type");
  if (type === undefined || type === null || toId(type) !== field.Type) {
    messages.push(
      invalid(
        "FieldTypeMismatch",
        `${where}: Type must be ${field.Type}, the type of field ${fieldId} (${field.Name}).`,
        typeof type === "object" ? null : type,
      ),
    );
    return undefined;
  }
  if (!field.IsActive) {
    messages.push(
      invalid("FieldInactive", `${where}: field ${fieldId} (${field.Name}) is inactive.`, fieldId),
    );
    return undefined;
  }
  const tag = keyed(raw, "Tag");
  if (tag !== undefined && tag !== null && typeof tag !== "string") {
    messages.push(invalid("InvalidValue", `${where}.Tag: must be text.`));
    return undefined;
  }
  const checked = checkValue(field, keyed(raw, "Value"), lookups);
  if ("problem" in checked) {
    messages.push(invalid("InvalidFieldValue", `${where}.Value (${field.Name}): ${checked.problem}.`));
    return undefined;
  }
  if (checked.value === null) return null;
  return {
    Type: field.Type,
    Value: checked.value,
    FieldId: fieldId,
    ...(typeof tag === "string" ? { Tag: tag } : {}),
  };
}

function checkContents(store: Store, content: ContentData, level: LevelRecord, input: SaveInput): Checked {
  const catalogue = catalogueOf(store);
  const lookups = lookupsFor(store, content, catalogue);
  const messages: ValidationMessage[] = [];
  const changes = new Map<string, FieldContent | null>();
  for (const [key, raw] of Object.entries(input.fieldContents)) {
    const checked = checkEntry(catalogue, lookups, level, key, raw, messages);
    if (checked !== undefined) changes.set(String(toId(key)), checked);
  }
  messages.push(...subformRule(catalogue, level, input.subformFieldId));
  return { changes, messages };
}

/** `SubformFieldId`: present for sub-form content (naming a sub-form field of that sub-form), omitted otherwise. */
function subformRule(
  catalogue: Catalogue,
  level: LevelRecord,
  subformFieldId: number | null,
): ValidationMessage[] {
  const module = catalogue.module(level.ModuleId);
  const isSubform = module?.Type === "SubForm";
  if (!isSubform) {
    return subformFieldId === null
      ? []
      : [
          invalid(
            "SubformFieldIdNotAllowed",
            `SubformFieldId must be omitted: level ${level.Id} (${level.Name}) is not sub-form content.`,
            subformFieldId,
          ),
        ];
  }
  if (subformFieldId === null) {
    return [
      invalid(
        "SubformFieldIdRequired",
        `SubformFieldId is required: level ${level.Id} (${level.Name}) is content of the sub-form ${module.Name}.`,
      ),
    ];
  }
  const field = catalogue.field(subformFieldId);
  if (field?.Type !== FieldType.SubForm || field.SubformModuleId !== module.Id) {
    return [
      invalid(
        "InvalidSubformFieldId",
        `SubformFieldId ${subformFieldId} is not a sub-form field of the sub-form ${module.Name}.`,
        subformFieldId,
      ),
    ];
  }
  return [];
}

function requiredRule(catalogue: Catalogue, level: LevelRecord, contents: Record<string, FieldContent>) {
  return catalogue
    .fieldsOf(level.Id)
    .filter((field) => field.IsRequired && field.IsActive && contents[String(field.Id)] === undefined)
    .map((field) =>
      invalid("RequiredFieldMissing", `Field ${field.Id} (${field.Name}) is required.`, field.Id),
    );
}

function applied(before: Record<string, FieldContent>, changes: Map<string, FieldContent | null>) {
  const after = { ...before };
  for (const [key, value] of changes) {
    if (value === null) delete after[key];
    else after[key] = value;
  }
  return after;
}

function levelOf(catalogue: Catalogue, levelId: number): LevelRecord {
  const level = catalogue.level(levelId);
  if (!level) throw badRequest("LevelNotFound", `LevelId: level ${levelId} does not exist.`, levelId);
  return level;
}

/** Validates everything, then returns the new contents or throws one 400 listing every problem. */
function validated(store: Store, content: ContentData, level: LevelRecord, input: SaveInput, before = {}) {
  const { changes, messages } = checkContents(store, content, level, input);
  const after = applied(before, changes);
  messages.push(...requiredRule(catalogueOf(store), level, after));
  if (messages.length > 0) throw new HttpFailure(400, messages);
  return after;
}

export function createRecord(store: Store, userId: number, input: SaveInput): StoredRecord {
  const content = contentOf(store);
  if (input.id !== null && recordOf(content, input.id)) {
    throw forbidden("ContentAlreadyExists", `Content ${input.id} already exists; update it with PUT.`);
  }
  const catalogue = catalogueOf(store);
  const level = levelOf(catalogue, input.levelId);
  const contents = validated(store, content, level, input);
  const now = store.isoNow();
  const record: StoredRecord = {
    Id: store.nextId("content"),
    LevelId: level.Id,
    SequentialId: nextSequentialId(content, catalogue, level.Id),
    Version: "1",
    FieldContents: contents,
    OwnerId: userId,
    UpdateInformation: { CreateDate: now, UpdateDate: now, CreateLogin: userId, UpdateLogin: userId },
    History: {},
    Workflow: startJob(content, level.Id),
  };
  content.records[String(record.Id)] = record;
  logSave(store, content, catalogue, record, { action: HistoryAction.Created, userId, before: {} });
  store.changed();
  return record;
}

/** The caller's access to `record` is checked by the route before this runs. */
export function updateRecord(
  store: Store,
  userId: number,
  record: StoredRecord,
  input: SaveInput,
): StoredRecord {
  const content = contentOf(store);
  const catalogue = catalogueOf(store);
  if (input.levelId !== record.LevelId) {
    throw badRequest(
      "LevelMismatch",
      `Content.LevelId ${input.levelId} differs from the record's level ${record.LevelId}; a record cannot change level.`,
      input.levelId,
    );
  }
  const level = levelOf(catalogue, record.LevelId);
  const before = record.FieldContents;
  record.FieldContents = validated(store, content, level, input, before);
  touch(store, record, userId);
  logSave(store, content, catalogue, record, { action: HistoryAction.Updated, userId, before });
  store.changed();
  return record;
}

/** A save: the next version, and who saved it when. */
export function touch(store: Store, record: StoredRecord, userId: number): void {
  record.Version = String((Number.parseInt(record.Version, 10) || 0) + 1);
  record.UpdateInformation = { ...record.UpdateInformation, UpdateDate: store.isoNow(), UpdateLogin: userId };
}

/** Removes a record, and every reference other records hold to it. */
export function deleteRecord(store: Store, record: StoredRecord): void {
  const content = contentOf(store);
  delete content.records[String(record.Id)];
  for (const other of Object.values(content.records)) {
    for (const [key, field] of Object.entries(other.FieldContents)) {
      if (!REFERENCE_TYPES.has(field.Type)) continue;
      const items = field.Value as unknown[];
      const kept = items.filter((item) => referencedId(item) !== record.Id);
      if (kept.length === items.length) continue;
      if (kept.length === 0) delete other.FieldContents[key];
      else other.FieldContents[key] = { ...field, Value: kept };
    }
  }
  store.changed();
}

/** A stored reference item's record id: type 9 holds `{ContentId, LevelId}`, types 23 and 24 ids. */
function referencedId(item: unknown): number {
  return typeof item === "number" ? item : (item as CrossReferenceItem).ContentId;
}

const REFERENCE_TYPES: ReadonlySet<number> = new Set([
  FieldType.CrossReference,
  FieldType.RelatedRecords,
  FieldType.SubForm,
]);

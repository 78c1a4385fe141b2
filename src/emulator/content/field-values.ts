import { isIP } from "node:net";
import { type CrossReferenceItem, FieldType } from "../../wire/index.ts";
import type { FieldRecord } from "../catalogue/model.ts";

/*
 * Checks a field content's `Value` against its field, by type code, and returns it in the one shape
 * the emulator stores and reads back (docs/emulator.md, "Content, attachments and workflow").
 * Keys inside values match case-insensitively and ids may be numeric strings, as request bodies
 * bind elsewhere. An empty value (null, "", [], a values list with nothing chosen) clears the field.
 */

/** What the checks need to know about the rest of the instance. */
export interface ValueLookups {
  userExists(id: number): boolean;
  groupExists(id: number): boolean;
  /** The level of a content record, or undefined when there is no such record. */
  recordLevel(id: number): number | undefined;
  /** The module of a level. */
  moduleOfLevel(levelId: number): number | undefined;
  attachmentExists(id: number): boolean;
}

/** `value: null` clears the field. */
export type Checked = { value: unknown } | { problem: string };

const CLEARED: Checked = { value: null };
const LINK_PROTOCOLS = new Set(["http:", "https:", "ftp:", "mailto:"]);
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(T(\d{2}):(\d{2})(:(\d{2})(\.\d{1,7})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

function problem(text: string): Checked {
  return { problem: text };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A property by name, compared case-insensitively. */
export function keyed(object: Record<string, unknown>, name: string): unknown {
  const lower = name.toLowerCase();
  const key = Object.keys(object).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : object[key];
}

/** A positive integer id, also from a numeric string. */
export function toId(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) return value;
  if (typeof value === "string" && /^\s*\d{1,15}\s*$/.test(value)) {
    const id = Number(value);
    return id > 0 ? id : undefined;
  }
  return undefined;
}

/** A list of distinct ids, or the index of the first item that is not an id. */
function idList(value: unknown): { ids: number[] } | { bad: number } | undefined {
  if (!Array.isArray(value)) return undefined;
  const ids: number[] = [];
  for (const [index, item] of value.entries()) {
    const id = toId(item);
    if (id === undefined) return { bad: index };
    if (!ids.includes(id)) ids.push(id);
  }
  return { ids };
}

function text(value: unknown): Checked {
  if (typeof value === "number" || typeof value === "boolean") return { value: String(value) };
  if (typeof value !== "string") return problem("must be text");
  return value === "" ? CLEARED : { value };
}

function numeric(value: unknown): Checked {
  if (typeof value === "number" && Number.isFinite(value)) return { value };
  if (typeof value === "string" && /^\s*-?\d+(\.\d+)?([eE][+-]?\d+)?\s*$/.test(value)) {
    return { value: Number(value) };
  }
  if (value === "") return CLEARED;
  return problem("must be a number");
}

/** An ISO 8601 date or date-time that names a real calendar day and time. */
export function isIsoDate(value: string): boolean {
  const match = ISO_DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    return false;
  }
  const hours = Number(match[5] ?? 0);
  const minutes = Number(match[6] ?? 0);
  const seconds = Number(match[8] ?? 0);
  return hours < 24 && minutes < 60 && seconds < 60;
}

function date(value: unknown): Checked {
  if (value === "") return CLEARED;
  if (typeof value !== "string" || !isIsoDate(value)) {
    return problem("must be an ISO 8601 date or date-time (2026-01-31 or 2026-01-31T09:30:00Z)");
  }
  return { value };
}

/**
 * A value of the field's list named by id, or by name as clients that know only names send it (an
 * exact name first, then one that differs only in case or surrounding space, as SQL Server
 * compares). An id wins over a name that looks like one.
 */
function valueIdOf(field: FieldRecord, item: unknown): number | string {
  const id = toId(item);
  if (id !== undefined) return id;
  if (typeof item !== "string" || item.trim() === "") return "is not a value id or name";
  const exact = field.ValuesListValues.filter((v) => v.Name === item);
  const loose = field.ValuesListValues.filter(
    (v) => v.Name.trim().toLowerCase() === item.trim().toLowerCase(),
  );
  const found = exact.length > 0 ? exact : loose;
  if (found.length === 1) return (found[0] as { Id: number }).Id;
  const shown = item.length > 100 ? `${item.slice(0, 100)}…` : item;
  return found.length === 0
    ? `'${shown}' is not a value of this field's list`
    : `'${shown}' names several values`;
}

/** `ValuesListIds` (ids or names), or the value itself given as a name, an id or a list of them. */
function chosenValues(value: unknown): { items: unknown[]; other: unknown } | undefined {
  if (value === "") return { items: [], other: null };
  if (typeof value === "string" || typeof value === "number") return { items: [value], other: null };
  if (Array.isArray(value)) return { items: value, other: null };
  if (!isObject(value)) return undefined;
  const raw = keyed(value, "ValuesListIds");
  const other = keyed(value, "OtherText") ?? null;
  if (raw === undefined || raw === null) return { items: [], other };
  return Array.isArray(raw) ? { items: raw, other } : undefined;
}

function valuesList(field: FieldRecord, value: unknown): Checked {
  const chosen = chosenValues(value);
  if (!chosen) return problem("must be an object with ValuesListIds (value ids or names) and OtherText");
  const ids: number[] = [];
  for (const [index, item] of chosen.items.entries()) {
    const id = valueIdOf(field, item);
    if (typeof id === "string") return problem(`ValuesListIds.${index} ${id}`);
    if (!ids.includes(id)) ids.push(id);
  }
  const known = new Set(field.ValuesListValues.map((v) => v.Id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    return problem(`ValuesListIds ${unknown.join(", ")} are not values of this field's list`);
  }
  const other = chosen.other;
  if (other !== null && typeof other !== "string") return problem("OtherText must be a string or null");
  if (ids.length === 0 && (other === null || other === "")) return CLEARED;
  return { value: { ValuesListIds: ids, OtherText: other } };
}

function externalLinks(value: unknown): Checked {
  if (!Array.isArray(value)) return problem("must be an array of {Name, URL} links");
  const links: Array<{ Name: string; URL: string }> = [];
  for (const [index, item] of value.entries()) {
    if (!isObject(item)) return problem(`${index} must be an object with Name and URL`);
    const url = keyed(item, "URL");
    const name = keyed(item, "Name") ?? null;
    if (typeof url !== "string" || !URL.canParse(url)) return problem(`${index}.URL must be an absolute URL`);
    if (!LINK_PROTOCOLS.has(new URL(url).protocol)) {
      return problem(`${index}.URL must use http, https, ftp or mailto`);
    }
    if (name !== null && typeof name !== "string") return problem(`${index}.Name must be text or null`);
    links.push({ Name: name || url, URL: url });
  }
  return links.length === 0 ? CLEARED : { value: links };
}

function principals(
  value: Record<string, unknown>,
  key: "UserList" | "GroupList",
  exists: (id: number) => boolean,
): { ids: number[] } | { problem: string } {
  const raw = keyed(value, key);
  if (raw === undefined || raw === null) return { ids: [] };
  if (!Array.isArray(raw)) return { problem: `${key} must be an array of {Id} objects` };
  const ids: number[] = [];
  for (const [index, item] of raw.entries()) {
    const id = isObject(item) ? toId(keyed(item, "Id")) : undefined;
    if (id === undefined) return { problem: `${key}.${index} must be an object with a positive Id` };
    if (!exists(id))
      return { problem: `${key}.${index}: ${key === "UserList" ? "user" : "group"} ${id} does not exist` };
    if (!ids.includes(id)) ids.push(id);
  }
  return { ids };
}

function usersGroups(value: unknown, lookups: ValueLookups): Checked {
  if (!isObject(value)) return problem("must be an object with UserList and GroupList");
  const users = principals(value, "UserList", (id) => lookups.userExists(id));
  if ("problem" in users) return users;
  const groups = principals(value, "GroupList", (id) => lookups.groupExists(id));
  if ("problem" in groups) return groups;
  if (users.ids.length === 0 && groups.ids.length === 0) return CLEARED;
  return {
    value: {
      UserList: users.ids.map((Id) => ({ Id })),
      GroupList: groups.ids.map((Id) => ({ Id })),
    },
  };
}

/** An array of ids, each checked by `check` (which names what is wrong, or returns undefined). */
function ids(value: unknown, what: string, check: (id: number) => string | undefined): Checked {
  const list = idList(value);
  if (!list) return problem(`must be an array of ${what} ids`);
  if ("bad" in list) return problem(`item ${list.bad} is not a valid id`);
  for (const id of list.ids) {
    const wrong = check(id);
    if (wrong) return problem(wrong);
  }
  return list.ids.length === 0 ? CLEARED : { value: list.ids };
}

/** Why a record can't be a reference of this field, or undefined when it can. */
function referenceProblem(field: FieldRecord, id: number, lookups: ValueLookups): string | undefined {
  const level = lookups.recordLevel(id);
  if (level === undefined) return `content ${id} does not exist`;
  if (!field.ReferencedLevelIds.includes(level)) {
    return `content ${id} is in level ${level}, which this field does not reference`;
  }
  return undefined;
}

/** Type 23 (Related Records): bare record ids, as the seed shows. */
function relatedRecords(field: FieldRecord, value: unknown, lookups: ValueLookups): Checked {
  return ids(value, "content", (id) => referenceProblem(field, id, lookups));
}

/** One item of a type 9 value: `{ContentId, LevelId?}`, or a bare id. */
function crossReferenceItem(item: unknown): { id: number; level?: number } | undefined {
  if (!isObject(item)) {
    const id = toId(item);
    return id === undefined ? undefined : { id };
  }
  const id = toId(keyed(item, "ContentId"));
  const rawLevel = keyed(item, "LevelId");
  if (id === undefined) return undefined;
  if (rawLevel === undefined || rawLevel === null) return { id };
  const level = toId(rawLevel);
  return level === undefined ? undefined : { id, level };
}

/**
 * Type 9 (Cross-Reference): `[{ContentId, LevelId}]`, as real instances answer it and public clients
 * send it; bare ids are taken too, as clients written to the seed's type 23 shape send them. A
 * `LevelId` that is sent must be the record's level; one that is not sent is filled in.
 */
function crossReferences(field: FieldRecord, value: unknown, lookups: ValueLookups): Checked {
  if (!Array.isArray(value)) return problem("must be an array of {ContentId, LevelId} objects");
  const items: CrossReferenceItem[] = [];
  for (const [index, raw] of value.entries()) {
    const item = crossReferenceItem(raw);
    if (!item) return problem(`item ${index} must be {ContentId, LevelId} or a content id`);
    const wrong = referenceProblem(field, item.id, lookups);
    if (wrong) return problem(wrong);
    const level = lookups.recordLevel(item.id) as number;
    if (item.level !== undefined && item.level !== level) {
      return problem(`item ${index}: content ${item.id} is in level ${level}, not ${item.level}`);
    }
    if (!items.some((known) => known.ContentId === item.id))
      items.push({ ContentId: item.id, LevelId: level });
  }
  return items.length === 0 ? CLEARED : { value: items };
}

function subform(field: FieldRecord, value: unknown, lookups: ValueLookups): Checked {
  return ids(value, "content", (id) => {
    const level = lookups.recordLevel(id);
    if (level === undefined) return `content ${id} does not exist`;
    if (lookups.moduleOfLevel(level) !== field.SubformModuleId) {
      return `content ${id} is not content of this field's sub-form`;
    }
    return undefined;
  });
}

function attachments(value: unknown, lookups: ValueLookups): Checked {
  return ids(value, "attachment", (id) =>
    lookups.attachmentExists(id) ? undefined : `attachment ${id} does not exist`,
  );
}

function matrix(value: unknown): Checked {
  if (!Array.isArray(value)) return problem("must be an array of {Row, Column} cells");
  const cells: Array<{ Row: string; Column: string }> = [];
  for (const [index, item] of value.entries()) {
    const row = isObject(item) ? keyed(item, "Row") : undefined;
    const column = isObject(item) ? keyed(item, "Column") : undefined;
    if (typeof row !== "string" || row === "" || typeof column !== "string" || column === "") {
      return problem(`${index} must be an object with non-empty Row and Column`);
    }
    if (!cells.some((c) => c.Row === row && c.Column === column)) cells.push({ Row: row, Column: column });
  }
  return cells.length === 0 ? CLEARED : { value: cells };
}

function ipAddress(value: unknown): Checked {
  if (value === "") return CLEARED;
  if (typeof value !== "string" || isIP(value) === 0) return problem("must be an IPv4 or IPv6 address");
  return { value };
}

/** Checks a value for its field; null and undefined clear the field. */
export function checkValue(field: FieldRecord, value: unknown, lookups: ValueLookups): Checked {
  if (value === null || value === undefined) return CLEARED;
  switch (field.Type) {
    case FieldType.Text:
      return text(value);
    case FieldType.Numeric:
      return numeric(value);
    case FieldType.Date:
      return date(value);
    case FieldType.ValuesList:
      return valuesList(field, value);
    case FieldType.ExternalLinks:
      return externalLinks(value);
    case FieldType.UsersGroups:
      return usersGroups(value, lookups);
    case FieldType.CrossReference:
      return crossReferences(field, value, lookups);
    case FieldType.RelatedRecords:
      return relatedRecords(field, value, lookups);
    case FieldType.Attachment:
    case FieldType.Image:
      return attachments(value, lookups);
    case FieldType.Matrix:
      return matrix(value);
    case FieldType.IpAddress:
      return ipAddress(value);
    case FieldType.SubForm:
      return subform(field, value, lookups);
    default:
      return problem(`has type ${field.Type}, which the emulator cannot store`);
  }
}

import {
  type CrossReferenceItem,
  type ExternalLink,
  type FieldContent,
  FieldType,
  type MatrixCell,
  type UsersGroupsContent,
  type ValuesListContent,
} from "../../wire/index.ts";
import type { Catalogue, FieldRecord, LevelRecord, ModuleRecord } from "../catalogue/model.ts";
import { allRecords, type ContentData, type StoredRecord } from "../content/model.ts";
import { canRead } from "../content/permissions.ts";
import type { Session, Store } from "../store.ts";
import { SoapFault } from "./envelope.ts";
import { child, childrenNamed, escapeXml, tag, type XmlElement } from "./xml.ts";

/*
 * `ExecuteSearch` and `SearchRecordsByReport` over the same records the REST content calls read.
 * A search document (`<SearchReport>`) names a module, the fields to display, and optionally a
 * filter, a sort and paging; the answer is the `<Records>` document real instances return as a
 * string. What a search document may hold that the emulator cannot honour is refused with a fault,
 * never ignored, as the REST calls refuse an OData option they can't honour.
 */

export const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 1000;

export interface SearchPlan {
  module: ModuleRecord;
  levels: LevelRecord[];
  display: FieldRecord[];
  filter: (record: StoredRecord) => boolean;
  sort: Array<{ field: FieldRecord; descending: boolean }>;
  pageSize: number;
  /** Records considered at most (`MaxRecordCount`). */
  maxRecords: number | undefined;
  pageNumber: number | undefined;
}

function clientFault(text: string): SoapFault {
  return new SoapFault(text, { client: true });
}

function positiveInt(text: string | undefined, what: string): number | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  if (!/^\s*\d{1,9}\s*$/.test(text) || Number(text) < 1)
    throw clientFault(`${what} must be a positive whole number.`);
  return Number(text);
}

/** A module, level or field named by id or GUID. */
function byIdOrGuid<T>(
  text: string,
  byId: (id: number) => T | undefined,
  byGuid: (g: string) => T | undefined,
) {
  const trimmed = text.trim();
  return /^\d{1,9}$/.test(trimmed) ? byId(Number(trimmed)) : byGuid(trimmed);
}

function moduleOf(catalogue: Catalogue, element: XmlElement): ModuleRecord {
  const found = byIdOrGuid(
    element.text,
    (id) => catalogue.module(id),
    (guid) => catalogue.byGuid("modules", guid),
  );
  if (!found) throw clientFault(`The module ${element.text.trim()} does not exist.`);
  return found;
}

/** A field named by id or GUID in an element's text; it must be on one of the search's levels. */
function fieldIn(catalogue: Catalogue, levels: LevelRecord[], element: XmlElement | undefined): FieldRecord {
  const text = element?.text.trim() ?? "";
  const found = byIdOrGuid(
    text,
    (id) => catalogue.field(id),
    (guid) => catalogue.byGuid("fields", guid),
  );
  if (!found || !levels.some((level) => level.Id === found.LevelId)) {
    throw clientFault(`The field ${text || "(none)"} is not a field of the searched module.`);
  }
  return found;
}

function textOf(element: XmlElement, name: string): string | undefined {
  return child(element, name)?.text.trim();
}

// ---- filter conditions -------------------------------------------------------------------------

type Predicate = (record: StoredRecord) => boolean;

function contentValue(record: StoredRecord, field: FieldRecord): unknown {
  return record.FieldContents[String(field.Id)]?.Value ?? null;
}

function requireType(field: FieldRecord, types: number[], condition: string): void {
  if (!types.includes(field.Type)) {
    throw clientFault(`${condition}: the field ${field.Id} (${field.Name}) has type ${field.Type}.`);
  }
}

function operatorOf(condition: XmlElement, allowed: string[]): string {
  const operator = textOf(condition, "Operator") ?? "";
  const match = allowed.find((o) => o.toLowerCase() === operator.toLowerCase());
  if (!match) {
    throw clientFault(`${condition.local}: the operator '${operator}' is not one of ${allowed.join(", ")}.`);
  }
  return match;
}

function textCondition(condition: XmlElement, field: FieldRecord): Predicate {
  requireType(field, [FieldType.Text, FieldType.IpAddress], condition.local);
  const operator = operatorOf(condition, ["Contains", "DoesNotContain", "Equals", "NotEqual"]);
  const wanted = (textOf(condition, "Value") ?? "").toLowerCase();
  return (record) => {
    const value = String(contentValue(record, field) ?? "").toLowerCase();
    if (operator === "Contains") return value.includes(wanted);
    if (operator === "DoesNotContain") return !value.includes(wanted);
    if (operator === "Equals") return value === wanted;
    return value !== wanted;
  };
}

const COMPARISONS = [
  "Equals",
  "NotEqual",
  "GreaterThan",
  "LessThan",
  "GreaterThanOrEqual",
  "LessThanOrEqual",
];

function compare(operator: string, left: number, right: number): boolean {
  if (operator === "Equals") return left === right;
  if (operator === "NotEqual") return left !== right;
  if (operator === "GreaterThan") return left > right;
  if (operator === "LessThan") return left < right;
  if (operator === "GreaterThanOrEqual") return left >= right;
  return left <= right;
}

function numericCondition(condition: XmlElement, field: FieldRecord): Predicate {
  requireType(field, [FieldType.Numeric], condition.local);
  const operator = operatorOf(condition, COMPARISONS);
  const raw = textOf(condition, "Value") ?? "";
  const wanted = Number(raw);
  if (raw === "" || !Number.isFinite(wanted))
    throw clientFault(`${condition.local}: '${raw}' is not a number.`);
  return (record) => {
    const value = contentValue(record, field);
    return typeof value === "number" && compare(operator, value, wanted);
  };
}

/** A date as an instant; one without an offset is UTC, as the REST queries read it. */
function instant(text: string): number {
  const iso = /[zZ]|[+-]\d{2}:\d{2}$/.test(text) || !text.includes("T") ? text : `${text}Z`;
  return Date.parse(/T/.test(iso) ? iso : `${iso}T00:00:00Z`);
}

function dateCondition(condition: XmlElement, field: FieldRecord): Predicate {
  requireType(field, [FieldType.Date], condition.local);
  const operator = operatorOf(condition, COMPARISONS);
  const raw = textOf(condition, "Value") ?? "";
  const wanted = instant(raw);
  if (Number.isNaN(wanted)) throw clientFault(`${condition.local}: '${raw}' is not an ISO 8601 date.`);
  const withTime = (textOf(condition, "IsTimeIncluded") ?? "true").toLowerCase() !== "false";
  const day = (ms: number) => Math.floor(ms / 86_400_000);
  return (record) => {
    const value = contentValue(record, field);
    if (typeof value !== "string") return false;
    const at = instant(value);
    return withTime ? compare(operator, at, wanted) : compare(operator, day(at), day(wanted));
  };
}

function idsIn(condition: XmlElement): number[] {
  const values = child(condition, "Values");
  const items = values ? childrenNamed(values, "Value") : [];
  return items.map((item) => {
    const id = positiveInt(item.text, `${condition.local}: a value`);
    if (id === undefined) throw clientFault(`${condition.local}: a value is empty.`);
    return id;
  });
}

function setCondition(operator: string, chosen: number[], wanted: number[]): boolean {
  if (operator === "Contains") return wanted.some((id) => chosen.includes(id));
  if (operator === "DoesNotContain") return !wanted.some((id) => chosen.includes(id));
  const same = chosen.length === wanted.length && wanted.every((id) => chosen.includes(id));
  return operator === "Equals" ? same : !same;
}

function valuesListCondition(condition: XmlElement, field: FieldRecord): Predicate {
  requireType(field, [FieldType.ValuesList], condition.local);
  const operator = operatorOf(condition, ["Contains", "DoesNotContain", "Equals", "NotEqual"]);
  const wanted = idsIn(condition);
  const known = new Set(field.ValuesListValues.map((v) => v.Id));
  const unknown = wanted.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw clientFault(`${condition.local}: ${unknown.join(", ")} are not values of the field ${field.Id}.`);
  }
  return (record) => {
    const value = contentValue(record, field) as ValuesListContent | null;
    return setCondition(operator, value?.ValuesListIds ?? [], wanted);
  };
}

/** Records by id (`ContentFilterCondition`), optionally limited to a level. */
function contentCondition(catalogue: Catalogue, condition: XmlElement): Predicate {
  const operator = operatorOf(condition, ["Equals", "NotEqual"]);
  const levelText = textOf(condition, "Level");
  const level = levelText
    ? byIdOrGuid(
        levelText,
        (id) => catalogue.level(id),
        (g) => catalogue.byGuid("levels", g),
      )
    : undefined;
  if (levelText && !level) throw clientFault(`${condition.local}: the level ${levelText} does not exist.`);
  const wanted = new Set(idsIn(condition));
  return (record) => {
    const hit = wanted.has(record.Id) && (!level || record.LevelId === level.Id);
    return operator === "Equals" ? hit : !hit;
  };
}

function conditionOf(catalogue: Catalogue, levels: LevelRecord[], condition: XmlElement): Predicate {
  const field = () => fieldIn(catalogue, levels, child(condition, "Field"));
  switch (condition.local.toLowerCase()) {
    case "textfiltercondition":
      return textCondition(condition, field());
    case "numericfiltercondition":
      return numericCondition(condition, field());
    case "datecomparisonfiltercondition":
      return dateCondition(condition, field());
    case "valuelistfiltercondition":
      return valuesListCondition(condition, field());
    case "contentfiltercondition":
      return contentCondition(catalogue, condition);
    default:
      throw clientFault(`The filter condition ${condition.local} is not supported by this instance.`);
  }
}

/**
 * `OperatorLogic` such as `1 AND (2 OR NOT 3)`: condition numbers from 1, in document order.
 * Without it every condition must hold.
 */
export function operatorLogic(text: string, conditions: Predicate[]): Predicate {
  const tokens = text.toUpperCase().match(/\d+|AND|OR|NOT|\(|\)|\S/g) ?? [];
  if (tokens.length > 1000) throw clientFault("OperatorLogic is too long.");
  let at = 0;
  const fail = (): never => {
    throw clientFault(`OperatorLogic '${text}' is not a valid expression of condition numbers.`);
  };
  const primary = (depth: number): Predicate => {
    if (depth > 100) fail();
    const token = tokens[at++];
    if (token === "NOT") {
      const inner = primary(depth + 1);
      return (r) => !inner(r);
    }
    if (token === "(") {
      const inner = or(depth + 1);
      if (tokens[at++] !== ")") fail();
      return inner;
    }
    const predicate = token && /^\d+$/.test(token) ? conditions[Number(token) - 1] : undefined;
    return predicate ?? fail();
  };
  const and = (depth: number): Predicate => {
    const parts = [primary(depth)];
    while (tokens[at] === "AND") {
      at += 1;
      parts.push(primary(depth));
    }
    return (r) => parts.every((p) => p(r));
  };
  const or = (depth: number): Predicate => {
    const parts = [and(depth)];
    while (tokens[at] === "OR") {
      at += 1;
      parts.push(and(depth));
    }
    return (r) => parts.some((p) => p(r));
  };
  const expression = or(0);
  if (at !== tokens.length) fail();
  return expression;
}

function filterOf(catalogue: Catalogue, levels: LevelRecord[], criteria: XmlElement): Predicate {
  const filters = childrenNamed(criteria, "Filter");
  if (filters.length > 1) throw clientFault("A search holds at most one Filter.");
  const filter = filters[0];
  if (!filter) return () => true;
  const conditions = child(filter, "Conditions")?.children ?? [];
  const predicates = conditions.map((condition) => conditionOf(catalogue, levels, condition));
  const logic = textOf(filter, "OperatorLogic");
  if (logic) return operatorLogic(logic, predicates);
  return (record) => predicates.every((p) => p(record));
}

// ---- the search document -----------------------------------------------------------------------

/** Reads a `<SearchReport>` into a plan over the catalogue. */
export function planSearch(catalogue: Catalogue, report: XmlElement): SearchPlan {
  if (report.local !== "SearchReport")
    throw clientFault("The search options must be a <SearchReport> document.");
  const criteria = child(report, "Criteria");
  const modules = criteria ? childrenNamed(criteria, "ModuleCriteria") : [];
  if (modules.length !== 1)
    throw clientFault("A search names exactly one module (Criteria/ModuleCriteria/Module).");
  const moduleElement = child(modules[0] as XmlElement, "Module");
  if (!moduleElement) throw clientFault("ModuleCriteria names no Module.");
  const module = moduleOf(catalogue, moduleElement);
  const levels = catalogue.levelsOf(module.Id);
  const displayFields = child(report, "DisplayFields");
  const display = displayFields
    ? childrenNamed(displayFields, "DisplayField").map((d) => fieldIn(catalogue, levels, d))
    : [];
  const sortFields = criteria ? child(criteria, "SortFields") : undefined;
  const sort = (sortFields ? childrenNamed(sortFields, "SortField") : []).map((s) => ({
    field: fieldIn(catalogue, levels, child(s, "Field")),
    descending: (textOf(s, "SortType") ?? "Ascending").toLowerCase() === "descending",
  }));
  const pageSize = positiveInt(textOf(report, "PageSize"), "PageSize") ?? DEFAULT_PAGE_SIZE;
  if (pageSize > MAX_PAGE_SIZE) throw clientFault(`PageSize must be at most ${MAX_PAGE_SIZE}.`);
  return {
    module,
    levels,
    display: display.filter((f, i) => display.findIndex((g) => g.Id === f.Id) === i),
    filter: criteria ? filterOf(catalogue, levels, criteria) : () => true,
    sort,
    pageSize,
    maxRecords: positiveInt(textOf(report, "MaxRecordCount"), "MaxRecordCount"),
    pageNumber: positiveInt(textOf(report, "PageNumber"), "PageNumber"),
  };
}

// ---- answering ---------------------------------------------------------------------------------

function sortKey(
  content: FieldContent | undefined,
  names: (c: FieldContent) => string,
): number | string | null {
  if (!content) return null;
  if (content.Type === FieldType.Numeric) return content.Value as number;
  if (content.Type === FieldType.Date) return instant(content.Value as string);
  return names(content).toLowerCase();
}

function compareKeys(a: number | string | null, b: number | string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

/** How a record's field reads in `<Field>`: its text, or child elements for structured values. */
export class FieldRenderer {
  private readonly store: Store;
  private readonly catalogue: Catalogue;

  constructor(store: Store, catalogue: Catalogue) {
    this.store = store;
    this.catalogue = catalogue;
  }

  /** The value as one line of text (what a sort compares and a values list displays). */
  text(content: FieldContent): string {
    const field = this.catalogue.field(content.FieldId);
    if (content.Type === FieldType.ValuesList) {
      const value = content.Value as ValuesListContent;
      const names = value.ValuesListIds.map(
        (id) => field?.ValuesListValues.find((v) => v.Id === id)?.Name ?? String(id),
      );
      return names.length > 0 ? names.join(", ") : (value.OtherText ?? "");
    }
    if (content.Type === FieldType.CrossReference) {
      return (content.Value as CrossReferenceItem[]).map((item) => item.ContentId).join(", ");
    }
    if (content.Type === FieldType.ExternalLinks)
      return (content.Value as ExternalLink[]).map((l) => l.Name).join(", ");
    if (content.Type === FieldType.Matrix) {
      return (content.Value as MatrixCell[]).map((c) => `${c.Row}: ${c.Column}`).join(", ");
    }
    if (content.Type === FieldType.UsersGroups) {
      const value = content.Value as UsersGroupsContent;
      return [
        ...value.UserList.map((u) => this.userName(u.Id)),
        ...value.GroupList.map((g) => this.groupName(g.Id)),
      ].join(", ");
    }
    if (Array.isArray(content.Value)) return content.Value.join(", ");
    return String(content.Value ?? "");
  }

  private userName(id: number): string {
    const user = this.store.user(id)?.user;
    return user ? `${user.LastName}, ${user.FirstName}` : String(id);
  }

  private groupName(id: number): string {
    return this.store.group(id)?.Name ?? String(id);
  }

  /** The `<Field>` element of one display field of a record (empty when the record has no value). */
  element(field: FieldRecord, content: FieldContent | undefined): string {
    const attributes: Record<string, string | number> = { id: field.Id, guid: field.Guid, type: field.Type };
    if (!content) return tag("Field", attributes);
    switch (content.Type) {
      case FieldType.Date: {
        const at = instant(content.Value as string);
        if (!Number.isNaN(at)) attributes.xmlConvertedValue = new Date(at).toISOString();
        return tag("Field", attributes, escapeXml(String(content.Value)));
      }
      case FieldType.ValuesList: {
        const value = content.Value as ValuesListContent;
        const items = value.ValuesListIds.map((id) => {
          const name = field.ValuesListValues.find((v) => v.Id === id)?.Name ?? String(id);
          return tag("ListValue", { id, displayName: name }, escapeXml(name));
        });
        const other = value.OtherText ? tag("OtherText", {}, escapeXml(value.OtherText)) : "";
        return tag(
          "Field",
          attributes,
          `${items.length > 0 ? tag("ListValues", {}, items.join("")) : ""}${other}`,
        );
      }
      case FieldType.UsersGroups: {
        const value = content.Value as UsersGroupsContent;
        const users = value.UserList.map((u) => {
          const user = this.store.user(u.Id)?.user;
          const names = {
            firstName: user?.FirstName ?? "",
            middleName: user?.MiddleName ?? "",
            lastName: user?.LastName ?? "",
          };
          return tag("User", { id: u.Id, ...names }, escapeXml(this.userName(u.Id)));
        });
        const groups = value.GroupList.map((g) =>
          tag("Group", { id: g.Id }, escapeXml(this.groupName(g.Id))),
        );
        return tag(
          "Field",
          attributes,
          `${tag("Users", {}, users.join(""))}${tag("Groups", {}, groups.join(""))}`,
        );
      }
      case FieldType.CrossReference:
      case FieldType.RelatedRecords: {
        const ids =
          content.Type === FieldType.CrossReference
            ? (content.Value as CrossReferenceItem[]).map((item) => item.ContentId)
            : (content.Value as number[]);
        return tag("Field", attributes, ids.map((id) => tag("Reference", { id }, String(id))).join(""));
      }
      default:
        return tag("Field", attributes, escapeXml(this.text(content)));
    }
  }
}

export interface SearchContext {
  store: Store;
  catalogue: Catalogue;
  content: ContentData;
  session: Session;
}

/** Runs a plan: the records of its levels the caller may read, filtered, sorted and paged. */
export function runSearch(context: SearchContext, plan: SearchPlan, pageNumber: number | undefined): string {
  const { store, catalogue, content, session } = context;
  const levelIds = new Set(plan.levels.map((l) => l.Id));
  const renderer = new FieldRenderer(store, catalogue);
  let matched = allRecords(content).filter(
    (record) => levelIds.has(record.LevelId) && canRead(store, session.userId, record) && plan.filter(record),
  );
  for (const { field, descending } of [...plan.sort].reverse()) {
    const key = (record: StoredRecord) =>
      sortKey(record.FieldContents[String(field.Id)], (c) => renderer.text(c));
    matched = matched.sort((a, b) => (descending ? -1 : 1) * compareKeys(key(a), key(b)));
  }
  if (plan.maxRecords !== undefined) matched = matched.slice(0, plan.maxRecords);
  const page = pageNumber ?? plan.pageNumber ?? 1;
  const shown = matched.slice((page - 1) * plan.pageSize, page * plan.pageSize);
  return recordsDocument(plan, matched, shown, renderer, catalogue);
}

function recordsDocument(
  plan: SearchPlan,
  matched: StoredRecord[],
  shown: StoredRecord[],
  renderer: FieldRenderer,
  catalogue: Catalogue,
): string {
  const definitions = plan.display
    .map((f) => tag("FieldDefinition", { id: f.Id, guid: f.Guid, name: f.Name, alias: f.Alias }))
    .join("");
  const counts = plan.levels
    .map((level) => ({ level, count: matched.filter((r) => r.LevelId === level.Id).length }))
    .filter(({ count }) => count > 0)
    .map(({ level, count }) => tag("LevelCount", { id: level.Id, guid: level.Guid, count }))
    .join("");
  const records = shown
    .map((record) => {
      const level = catalogue.level(record.LevelId);
      const fields = plan.display
        .filter((f) => f.LevelId === record.LevelId)
        .map((f) => renderer.element(f, record.FieldContents[String(f.Id)]))
        .join("");
      const attributes = {
        contentId: record.Id,
        levelId: record.LevelId,
        levelGuid: level?.Guid ?? "",
        moduleId: plan.module.Id,
        parentId: 0,
      };
      return tag("Record", attributes, fields);
    })
    .join("");
  const metadata = tag("Metadata", {}, `<FieldDefinitions>${definitions}</FieldDefinitions>`);
  return `<?xml version="1.0" encoding="utf-16"?>${tag("Records", { count: matched.length }, `${metadata}<LevelCounts>${counts}</LevelCounts>${records}`)}`;
}

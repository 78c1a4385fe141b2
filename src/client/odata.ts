import { InvalidArgumentError } from "./errors.ts";

/*
 * Typed OData query options ($filter, $select, $top, $skip, $orderby), rendered by the client so
 * that callers never paste query strings. Field names are checked, string values are quoted with
 * doubled single quotes, as OData writes them.
 */

export type ComparisonOperator = "eq" | "ne" | "gt" | "ge" | "lt" | "le";
export type FilterValue = string | number | boolean | null | Date;

export type Filter =
  | { field: string; op: ComparisonOperator; value: FilterValue }
  | { and: Filter[] }
  | { or: Filter[] }
  | { not: Filter };

export type OrderBy = string | { field: string; direction?: "asc" | "desc" };

export interface ODataQuery {
  filter?: Filter;
  select?: string | string[];
  top?: number;
  skip?: number;
  orderBy?: OrderBy | OrderBy[];
}

/** The options of a list read whose items keep their shape: `$select` would change it. */
export type ListQuery = Omit<ODataQuery, "select">;

/** `$select` only: the content-by-id read allows no other option. */
export type SelectOnly = Pick<ODataQuery, "select">;

const FIELD = /^[A-Za-z_][A-Za-z0-9_]*(\/[A-Za-z_][A-Za-z0-9_]*)*$/;
const OPERATORS: ReadonlySet<string> = new Set(["eq", "ne", "gt", "ge", "lt", "le"]);

function field(name: string): string {
  if (!FIELD.test(name)) throw new InvalidArgumentError(`OData: "${name}" is not a field name`);
  return name;
}

function literal(value: FilterValue): string {
  if (value === null) return "null";
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new InvalidArgumentError("OData: invalid date in a filter");
    return value.toISOString();
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new InvalidArgumentError(`OData: ${value} is not a finite number`);
    return String(value);
  }
  if (typeof value === "boolean") return String(value);
  return `'${value.replace(/'/g, "''")}'`;
}

export function renderFilter(filter: Filter): string {
  if ("and" in filter) return joined(filter.and, "and");
  if ("or" in filter) return joined(filter.or, "or");
  if ("not" in filter) return `not (${renderFilter(filter.not)})`;
  if (!OPERATORS.has(filter.op)) throw new InvalidArgumentError(`OData: unknown operator "${filter.op}"`);
  return `${field(filter.field)} ${filter.op} ${literal(filter.value)}`;
}

function joined(filters: Filter[], word: "and" | "or"): string {
  if (filters.length === 0) throw new InvalidArgumentError(`OData: an "${word}" needs at least one filter`);
  if (filters.length === 1) return renderFilter(filters[0] as Filter);
  return filters.map((inner) => `(${renderFilter(inner)})`).join(` ${word} `);
}

function count(name: string, value: number): string {
  if (!Number.isInteger(value) || value < 0) {
    throw new InvalidArgumentError(`OData: ${name} must be a whole number of 0 or more, got ${value}`);
  }
  return String(value);
}

function order(entry: OrderBy): string {
  if (typeof entry === "string") return field(entry);
  return entry.direction ? `${field(entry.field)} ${entry.direction}` : field(entry.field);
}

/** The options as query parameters, in a fixed order. */
export function odataParams(query: ODataQuery | undefined): Array<[string, string]> {
  if (!query) return [];
  const params: Array<[string, string]> = [];
  if (query.filter) params.push(["$filter", renderFilter(query.filter)]);
  if (query.select !== undefined) {
    const fields = (Array.isArray(query.select) ? query.select : [query.select]).map(field);
    if (fields.length > 0) params.push(["$select", fields.join(",")]);
  }
  if (query.top !== undefined) params.push(["$top", count("$top", query.top)]);
  if (query.skip !== undefined) params.push(["$skip", count("$skip", query.skip)]);
  if (query.orderBy !== undefined) {
    const entries = Array.isArray(query.orderBy) ? query.orderBy : [query.orderBy];
    if (entries.length > 0) params.push(["$orderby", entries.map(order).join(",")]);
  }
  return params;
}

/**
 * The options as one OData query text (`$filter=IsComplete eq false&$top=10`), for bodies that
 * carry it. Only `%` and `&` are escaped, so that the text stays readable and still splits right.
 */
export function odataText(query: ODataQuery | undefined): string {
  const protect = (text: string) => text.replace(/%/g, "%25").replace(/&/g, "%26");
  return odataParams(query)
    .map(([key, value]) => `${key}=${protect(value)}`)
    .join("&");
}

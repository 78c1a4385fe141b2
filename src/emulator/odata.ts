import { badRequest, type HttpFailure } from "./failure.ts";

/*
 * The emulator's one OData query parser and evaluator, shared by every route that takes queries.
 *
 * Supported: `$filter` (eq ne gt lt ge le, and or not, parentheses; 'strings' with '' escapes,
 * numbers, true/false/null, unquoted ISO 8601 date-times; a bare boolean field), `$select`,
 * `$top`, `$skip`, `$orderby` (comma list of `field [asc|desc]`). Field names, option names and
 * keywords match case-insensitively; string comparisons are case-insensitive, as on the SQL Server
 * collation real instances use. Anything else is a 400 naming the problem.
 */

export type FieldKind = "string" | "number" | "boolean" | "datetime" | "object";
/**
 * The fields a query may name: a list, or names with kinds (kinds enable type checks; a name whose
 * kind is undefined is accepted without them).
 */
export type FieldSpec = readonly string[] | Readonly<Record<string, FieldKind | undefined>>;

export interface ParseOptions {
  /** The `$` options this call takes (default: all five); any other is a 400 naming the call's set. */
  allow?: readonly string[];
}

/** Largest `$top`; a larger one is refused rather than silently cut, so paging can't lose rows. */
export const MAX_TOP = 1000;
/** Deepest nesting of parentheses and `not` in a `$filter`; the parser and evaluator recurse. */
export const MAX_FILTER_DEPTH = 100;
/** Most comparisons and tests in a `$filter`: `and`/`or` chains nest as deep as they are long. */
export const MAX_FILTER_TERMS = 1000;

export type CompareOp = "eq" | "ne" | "gt" | "lt" | "ge" | "le";
type LiteralType = "string" | "number" | "boolean" | "null" | "datetime";

export type Operand =
  | { kind: "field"; name: string }
  | { kind: "literal"; type: LiteralType; value: string | number | boolean | null };

export type FilterNode =
  | { kind: "and" | "or"; left: FilterNode; right: FilterNode }
  | { kind: "not"; operand: FilterNode }
  | { kind: "compare"; op: CompareOp; left: Operand; right: Operand }
  | { kind: "test"; field: string };

export interface OrderBy {
  field: string;
  descending: boolean;
}

export interface ODataQuery {
  filter?: FilterNode;
  /** Canonical field names; undefined means every field. */
  select?: string[];
  top?: number;
  skip: number;
  orderBy: OrderBy[];
}

export type GetField<T> = (row: T, field: string) => unknown;

const OPTIONS = ["$filter", "$select", "$top", "$skip", "$orderby"] as const;
const COMPARE_OPS: readonly string[] = ["eq", "ne", "gt", "lt", "ge", "le"];
const DATETIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/;

function invalid(option: string, text: string, value?: unknown): HttpFailure {
  return badRequest("InvalidQuery", `${option}: ${text}`, value);
}

// ---- fields

class Fields {
  private readonly byLower = new Map<string, string>();
  private readonly kinds = new Map<string, FieldKind>();

  constructor(spec: FieldSpec) {
    const entries: Array<[string, FieldKind | undefined]> = Array.isArray(spec)
      ? spec.map((name: string) => [name, undefined])
      : Object.entries(spec as Record<string, FieldKind | undefined>);
    for (const [name, kind] of entries) {
      this.byLower.set(name.toLowerCase(), name);
      if (kind) this.kinds.set(name, kind);
    }
  }

  /** The canonical name, or a 400 naming the unknown field. */
  resolve(option: string, name: string): string {
    const canonical = this.byLower.get(name.toLowerCase());
    if (canonical === undefined) throw invalid(option, `unknown field '${name}'.`, name);
    return canonical;
  }

  kind(name: string): FieldKind | undefined {
    return this.kinds.get(name);
  }
}

// ---- query strings

/**
 * Splits an OData query string (`$skip=0&$top=10&$filter=IsComplete eq false`), as the task read
 * carries it in `Value`. `&` inside a quoted literal does not split; percent escapes are decoded.
 */
export function parseODataString(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of splitOutsideQuotes(text.trim().replace(/^\?/, ""))) {
    if (part.trim() === "") continue;
    const equals = part.indexOf("=");
    if (equals <= 0) throw invalid("query", `'${part}' is not of the form $option=value.`, part);
    const key = decode(part.slice(0, equals).trim());
    if (Object.keys(out).some((k) => k.toLowerCase() === key.toLowerCase())) {
      throw invalid(key, "is given more than once.");
    }
    out[key] = decode(part.slice(equals + 1));
  }
  return out;
}

function splitOutsideQuotes(text: string): string[] {
  const parts: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "'") quoted = !quoted;
    else if (text[i] === "&" && !quoted) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

// ---- the query

/**
 * Parses the `$` options of a query (other keys belong to the route and are ignored).
 * Throws a 400 `HttpFailure` naming the problem.
 */
export function parseODataQuery(
  query: Readonly<Record<string, string | string[] | undefined>>,
  spec: FieldSpec,
  options: ParseOptions = {},
): ODataQuery {
  const fields = new Fields(spec);
  const allowed: readonly string[] = options.allow?.map((option) => option.toLowerCase()) ?? OPTIONS;
  const result: ODataQuery = { skip: 0, orderBy: [] };
  for (const [key, raw] of Object.entries(query)) {
    if (!key.startsWith("$") || raw === undefined) continue;
    const option = key.toLowerCase();
    if (!(OPTIONS as readonly string[]).includes(option)) {
      throw invalid(key, `is not supported (use ${OPTIONS.join(", ")}).`, key);
    }
    if (!allowed.includes(option)) {
      const which = allowed.length === 0 ? "takes no query options" : `takes only ${allowed.join(", ")}`;
      throw invalid(key, `is not allowed here: this call ${which}.`, key);
    }
    if (Array.isArray(raw)) throw invalid(key, "is given more than once.");
    applyOption(result, option, raw, fields);
  }
  return result;
}

function applyOption(result: ODataQuery, option: string, value: string, fields: Fields): void {
  switch (option) {
    case "$filter":
      result.filter = parseFilter(value, fields);
      return;
    case "$select":
      result.select = parseSelect(value, fields);
      return;
    case "$top":
      result.top = parseCount("$top", value);
      if (result.top > MAX_TOP) throw invalid("$top", `must be at most ${MAX_TOP}.`, value);
      return;
    case "$skip":
      result.skip = parseCount("$skip", value);
      return;
    case "$orderby":
      result.orderBy = parseOrderBy(value, fields);
      return;
  }
}

function parseCount(option: string, value: string): number {
  if (!/^\s*\d{1,9}\s*$/.test(value)) throw invalid(option, "must be a non-negative integer.", value);
  return Number(value);
}

function parseSelect(value: string, fields: Fields): string[] | undefined {
  const names = value.split(",").map((name) => name.trim());
  if (names.length === 1 && names[0] === "*") return undefined;
  if (names.some((name) => name === "")) throw invalid("$select", "has an empty field name.", value);
  return [...new Set(names.map((name) => fields.resolve("$select", name)))];
}

function parseOrderBy(value: string, fields: Fields): OrderBy[] {
  return value.split(",").map((item) => {
    const words = item.trim().split(/\s+/).filter(Boolean);
    const direction = words[1]?.toLowerCase();
    if (
      words.length === 0 ||
      words.length > 2 ||
      (direction && direction !== "asc" && direction !== "desc")
    ) {
      throw invalid("$orderby", `'${item.trim()}' is not of the form 'field [asc|desc]'.`, value);
    }
    const field = fields.resolve("$orderby", words[0] as string);
    if (fields.kind(field) === "object") throw invalid("$orderby", `cannot sort by '${field}'.`, value);
    return { field, descending: direction === "desc" };
  });
}

// ---- $filter: tokens

type Token =
  | { kind: "(" | ")"; at: number }
  | { kind: "word"; text: string; at: number }
  | { kind: "literal"; type: LiteralType; value: string | number | boolean | null; at: number };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const char = text[i] as string;
    if (/\s/.test(char)) {
      i += 1;
    } else if (char === "(" || char === ")") {
      tokens.push({ kind: char, at: i });
      i += 1;
    } else if (char === "'") {
      i = readString(text, i, tokens);
    } else {
      i = readWordOrNumber(text, i, tokens);
    }
  }
  return tokens;
}

function readString(text: string, start: number, tokens: Token[]): number {
  let value = "";
  let i = start + 1;
  for (;;) {
    if (i >= text.length)
      throw invalid("$filter", `unterminated string starting at position ${start}.`, text);
    if (text[i] === "'") {
      if (text[i + 1] !== "'") break;
      value += "'";
      i += 2;
    } else {
      value += text[i];
      i += 1;
    }
  }
  tokens.push({ kind: "literal", type: "string", value, at: start });
  return i + 1;
}

function readWordOrNumber(text: string, start: number, tokens: Token[]): number {
  const rest = text.slice(start);
  const date = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?/.exec(rest);
  if (date) {
    if (!DATETIME.test(date[0]) || Number.isNaN(instant(date[0]))) {
      throw invalid("$filter", `'${date[0]}' at position ${start} is not a valid date-time.`, text);
    }
    tokens.push({ kind: "literal", type: "datetime", value: date[0], at: start });
    return start + date[0].length;
  }
  const number = /^-?\d+(\.\d+)?([eE][+-]?\d+)?(?![\w.])/.exec(rest);
  if (number) {
    tokens.push({ kind: "literal", type: "number", value: Number(number[0]), at: start });
    return start + number[0].length;
  }
  const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
  if (!word) {
    throw invalid("$filter", `unexpected '${text[start]}' at position ${start}.`, text);
  }
  const lower = word[0].toLowerCase();
  if (lower === "true" || lower === "false") {
    tokens.push({ kind: "literal", type: "boolean", value: lower === "true", at: start });
  } else if (lower === "null") {
    tokens.push({ kind: "literal", type: "null", value: null, at: start });
  } else {
    tokens.push({ kind: "word", text: word[0], at: start });
  }
  return start + word[0].length;
}

// ---- $filter: grammar
//   or      := and ('or' and)*
//   and     := unary ('and' unary)*
//   unary   := 'not' unary | '(' or ')' | operand [op operand]

class FilterParser {
  private index = 0;
  private depth = 0;
  private terms = 0;
  private readonly tokens: Token[];
  private readonly text: string;
  private readonly fields: Fields;

  constructor(text: string, fields: Fields) {
    this.text = text;
    this.fields = fields;
    this.tokens = tokenize(text);
  }

  parse(): FilterNode {
    if (this.tokens.length === 0) throw invalid("$filter", "is empty.", this.text);
    const node = this.or();
    const extra = this.tokens[this.index];
    if (extra) throw this.unexpected(extra, "where the expression should end");
    return node;
  }

  private or(): FilterNode {
    let node = this.and();
    while (this.keyword("or")) node = { kind: "or", left: node, right: this.and() };
    return node;
  }

  private and(): FilterNode {
    let node = this.unary();
    while (this.keyword("and")) node = { kind: "and", left: node, right: this.unary() };
    return node;
  }

  private unary(): FilterNode {
    if (this.keyword("not")) return { kind: "not", operand: this.nested(() => this.unary()) };
    const token = this.tokens[this.index];
    if (token?.kind === "(") {
      this.index += 1;
      const node = this.nested(() => this.or());
      const close = this.tokens[this.index];
      if (close?.kind !== ")") throw this.unexpected(close, "where ')' was expected");
      this.index += 1;
      return node;
    }
    this.terms += 1;
    if (this.terms > MAX_FILTER_TERMS) {
      throw invalid("$filter", `holds more than ${MAX_FILTER_TERMS} comparisons.`, this.text.slice(0, 200));
    }
    const left = this.operand();
    const op = this.tokens[this.index];
    if (op?.kind === "word" && COMPARE_OPS.includes(op.text.toLowerCase())) {
      this.index += 1;
      return this.comparison(op.text.toLowerCase() as CompareOp, left, this.operand());
    }
    return this.test(left, op);
  }

  private operand(): Operand {
    const token = this.tokens[this.index];
    if (token?.kind === "literal") {
      this.index += 1;
      return { kind: "literal", type: token.type, value: token.value };
    }
    if (token?.kind === "word" && !isKeyword(token.text)) {
      this.index += 1;
      return { kind: "field", name: this.fields.resolve("$filter", token.text) };
    }
    throw this.unexpected(token, "where a field or a value was expected");
  }

  /** A bare operand is a test of a boolean field (`$filter=IsComplete`). */
  private test(operand: Operand, next: Token | undefined): FilterNode {
    const kind = operand.kind === "field" ? this.fields.kind(operand.name) : undefined;
    if (operand.kind !== "field" || (kind !== undefined && kind !== "boolean")) {
      throw this.unexpected(next, "where a comparison operator (eq, ne, gt, lt, ge, le) was expected");
    }
    return { kind: "test", field: operand.name };
  }

  private comparison(op: CompareOp, leftOperand: Operand, rightOperand: Operand): FilterNode {
    const left = this.numberFor(leftOperand, rightOperand);
    const right = this.numberFor(rightOperand, leftOperand);
    for (const [field, other] of [
      [left, right],
      [right, left],
    ] as const) {
      if (field.kind === "field") this.checkTypes(op, field.name, other);
    }
    return { kind: "compare", op, left, right };
  }

  /**
   * A quoted number compared with a numeric field is that number (`AccountStatus eq '1'`), as on
   * real instances, whose clients quote every literal; a quoted non-number stays a type mismatch.
   */
  private numberFor(operand: Operand, other: Operand): Operand {
    if (operand.kind !== "literal" || operand.type !== "string" || other.kind !== "field") return operand;
    if (this.fields.kind(other.name) !== "number") return operand;
    const text = String(operand.value).trim();
    if (!NUMBER.test(text)) return operand;
    return { kind: "literal", type: "number", value: Number(text) };
  }

  private checkTypes(op: CompareOp, field: string, other: Operand): void {
    const kind = this.fields.kind(field);
    if (kind === undefined) return;
    if (kind === "object") throw invalid("$filter", `'${field}' cannot be compared.`, this.text);
    if (kind === "boolean" && op !== "eq" && op !== "ne") {
      throw invalid("$filter", `'${field}' is a boolean; only eq and ne apply.`, this.text);
    }
    const otherType = other.kind === "field" ? this.fields.kind(other.name) : other.type;
    if (otherType === undefined || otherType === "null" || compatible(kind, otherType)) return;
    throw invalid(
      "$filter",
      `'${field}' is a ${kind} and cannot be compared with a ${otherType}.`,
      this.text,
    );
  }

  private nested(parse: () => FilterNode): FilterNode {
    this.depth += 1;
    if (this.depth > MAX_FILTER_DEPTH) {
      throw invalid(
        "$filter",
        `nests parentheses and 'not' deeper than ${MAX_FILTER_DEPTH} levels.`,
        this.text.slice(0, 200),
      );
    }
    const node = parse();
    this.depth -= 1;
    return node;
  }

  private keyword(word: string): boolean {
    const token = this.tokens[this.index];
    if (token?.kind !== "word" || token.text.toLowerCase() !== word) return false;
    this.index += 1;
    return true;
  }

  private unexpected(token: Token | undefined, where: string): HttpFailure {
    if (!token) return invalid("$filter", `the expression ends ${where}.`, this.text);
    const shown =
      token.kind === "word" ? token.text : token.kind === "literal" ? String(token.value) : token.kind;
    return invalid("$filter", `unexpected '${shown}' at position ${token.at} ${where}.`, this.text);
  }
}

const NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

function isKeyword(word: string): boolean {
  return ["and", "or", "not", ...COMPARE_OPS].includes(word.toLowerCase());
}

function compatible(kind: FieldKind, other: FieldKind | LiteralType): boolean {
  if (kind === "datetime" || kind === "string") return other === "string" || other === "datetime";
  return kind === other;
}

function parseFilter(text: string, fields: Fields): FilterNode {
  return new FilterParser(text, fields).parse();
}

// ---- evaluation

/** Filters, sorts (stable) and pages the rows. `$select` is applied per row by `selectFields`. */
export function applyODataQuery<T>(rows: readonly T[], query: ODataQuery, getField: GetField<T>): T[] {
  const { filter, orderBy, skip, top } = query;
  let out = filter ? rows.filter((row) => matches(filter, row, getField)) : [...rows];
  if (orderBy.length > 0) out = out.sort((a, b) => compareRows(a, b, orderBy, getField));
  return out.slice(skip, top === undefined ? undefined : skip + top);
}

/** The row with only the `$select` fields, or the row itself when there is no `$select`. */
export function selectFields<T>(
  row: T,
  query: ODataQuery,
  getField: GetField<T>,
): T | Record<string, unknown> {
  if (!query.select) return row;
  return Object.fromEntries(query.select.map((field) => [field, getField(row, field) ?? null]));
}

export function matches<T>(node: FilterNode, row: T, getField: GetField<T>): boolean {
  switch (node.kind) {
    case "and":
      return matches(node.left, row, getField) && matches(node.right, row, getField);
    case "or":
      return matches(node.left, row, getField) || matches(node.right, row, getField);
    case "not":
      return !matches(node.operand, row, getField);
    case "test":
      return getField(row, node.field) === true;
    case "compare":
      return compareValues(
        node.op,
        operandValue(node.left, row, getField),
        operandValue(node.right, row, getField),
      );
  }
}

function operandValue<T>(operand: Operand, row: T, getField: GetField<T>): unknown {
  return operand.kind === "field" ? getField(row, operand.name) : operand.value;
}

function compareValues(op: CompareOp, a: unknown, b: unknown): boolean {
  if (op === "eq") return order(a, b) === 0;
  if (op === "ne") return order(a, b) !== 0;
  // As in SQL, an ordering comparison with null is false.
  if (a == null || b == null) return false;
  const result = order(a, b);
  if (result === undefined) return false;
  if (op === "gt") return result > 0;
  if (op === "lt") return result < 0;
  if (op === "ge") return result >= 0;
  return result <= 0;
}

/** Orders two values: nulls first, numbers numerically, date-times by instant, text case-insensitively. */
function order(a: unknown, b: unknown): number | undefined {
  if (a == null || b == null) return a == null && b == null ? 0 : a == null ? -1 : 1;
  if (typeof a === "number" && typeof b === "number") return Math.sign(a - b);
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  if (typeof a !== "string" || typeof b !== "string") return undefined;
  if (DATETIME.test(a) && DATETIME.test(b)) return Math.sign(instant(a) - instant(b));
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Epoch ms of an ISO date-time; one without an offset is read as UTC, not as the host's zone. */
function instant(text: string): number {
  const hasZone = /(Z|[+-]\d{2}:\d{2})$/.test(text);
  return Date.parse(text.includes("T") && !hasZone ? `${text}Z` : text);
}

function compareRows<T>(a: T, b: T, orderBy: readonly OrderBy[], getField: GetField<T>): number {
  for (const { field, descending } of orderBy) {
    const result = order(getField(a, field), getField(b, field)) ?? 0;
    if (result !== 0) return descending ? -result : result;
  }
  return 0;
}

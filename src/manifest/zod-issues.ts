import type { z } from "zod";
import { type Path, type PathSegment, valueAt } from "./path.ts";
import type { Reporter } from "./report.ts";
import { SECRET_KEY } from "./substitute.ts";

type Issue = z.core.$ZodIssue;

const EXPECTED: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  object: "a mapping",
  array: "a list",
  null: "null",
};

/** What a value is, in words, without quoting it (it may be a secret). */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") return "text";
  if (typeof value === "number") return Number.isInteger(value) ? "an integer" : "a number";
  if (typeof value === "boolean") return "true or false";
  return typeof value;
}

function words(values: readonly unknown[]): string {
  return values.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(", ");
}

function sizeMessage(issue: Issue & { code: "too_small" | "too_big" }): string {
  const small = issue.code === "too_small";
  const bound = Number(issue.code === "too_small" ? issue.minimum : issue.maximum);
  if (issue.origin === "string" && small && bound === 1) return "must not be empty";
  if (issue.origin === "string") return `must be ${small ? "at least" : "at most"} ${bound} characters`;
  if (issue.origin === "array" && small) return `must list at least ${bound} item${bound === 1 ? "" : "s"}`;
  if (issue.origin === "array") return `must list at most ${bound} items`;
  if (small) return issue.inclusive ? `must be at least ${bound}` : `must be greater than ${bound}`;
  return issue.inclusive ? `must be at most ${bound}` : `must be less than ${bound}`;
}

function formatMessage(issue: Issue & { code: "invalid_format" }): string {
  if (issue.format === "date") return "expected a date, YYYY-MM-DD";
  if (issue.format === "guid") return "expected a GUID, 8-4-4-4-12 hexadecimal digits";
  return issue.message;
}

function messageOf(issue: Issue, root: unknown): string {
  switch (issue.code) {
    case "invalid_type": {
      const actual = valueAt(root, issue.path as Path);
      if (actual === undefined) return "is required";
      return `expected ${EXPECTED[issue.expected] ?? issue.expected}, got ${kindOf(actual)}`;
    }
    case "invalid_value":
      return issue.values.length === 1
        ? `expected ${words(issue.values)}`
        : `expected one of ${words(issue.values)}`;
    case "too_small":
    case "too_big":
      return sizeMessage(issue);
    case "invalid_format":
      return formatMessage(issue);
    default:
      return issue.message;
  }
}

/** What a person types as a field name, right or wrong: a password rarely looks like this. */
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9]{0,39}$/;

/**
 * Whether an unknown key can be named in a message. It can't when it does not look like a field
 * name, nor when it sits on the line of a secret's value: a literal secret with a comma in a
 * `{ … }` mapping splits there, and its second half becomes a key.
 */
function showsKey(mapping: Path, key: string, report: Reporter): boolean {
  if (!FIELD_NAME.test(key)) return false;
  const siblings = valueAt(report.document.value, mapping);
  if (siblings === null || typeof siblings !== "object") return true;
  const line = report.document.locate([...mapping, key], "key").line;
  return !Object.entries(siblings).some(
    ([name, value]) =>
      name !== key &&
      SECRET_KEY.test(name) &&
      typeof value === "string" &&
      report.document.locate([...mapping, name]).line === line,
  );
}

/** What a document's messages may say about it: its schema, and its name (`User anguyen`). */
export interface IssueContext {
  schema?: z.ZodType;
  name?: string;
}

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  in?: z.ZodType;
  options?: z.ZodType[];
  getter?: () => z.ZodType;
}

/** A schema's public definition (zod 4's `schema.def`). */
const defOf = (schema: z.ZodType): Def => (schema as unknown as { def: Def }).def;

/** The schemas a value at `path` may match: unions give several, wrappers are looked through. */
function schemasAt(schema: z.ZodType, path: Path): z.ZodType[] {
  const def = defOf(schema);
  const inner = def.innerType ?? def.in ?? def.getter?.();
  if (inner) return schemasAt(inner, path);
  if (def.options) return def.options.flatMap((option) => schemasAt(option, path));
  if (path.length === 0) return [schema];
  const [head, ...rest] = path;
  if (def.type === "array" && typeof head === "number" && def.element) return schemasAt(def.element, rest);
  if (def.type === "object" && typeof head === "string" && def.shape?.[head])
    return schemasAt(def.shape[head], rest);
  return [];
}

/** The keys a mapping at `path` may have. */
function knownKeys(schema: z.ZodType, path: Path): string[] {
  return [...new Set(schemasAt(schema, path).flatMap((option) => Object.keys(defOf(option).shape ?? {})))];
}

/** Edits (insert, delete, replace, swap of neighbours) between two words, ignoring case. */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const rows = Array.from({ length: x.length + 1 }, (_, i) =>
    Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      const row = rows[i] as number[];
      const up = rows[i - 1] as number[];
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      row[j] = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1])
        row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (rows[x.length] as number[])[y.length] as number;
}

/** The closest known key, when it is close enough to be a typo (two edits at most, fewer for short keys). */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  const limit = Math.min(2, Math.floor(key.length / 3));
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const d = distance(key, name);
    if (d <= limit && (!best || d < best.distance)) best = { name, distance: d };
  }
  return best?.name;
}

function reportUnknownKey(mapping: Path, key: string, report: Reporter, context: IssueContext): void {
  const within = context.name ? ` (${context.name})` : "";
  if (showsKey(mapping, key, report)) {
    const near = context.schema ? closestKey(key, knownKeys(context.schema, mapping)) : undefined;
    const hint = near ? `; did you mean "${near}"?` : "";
    report.error([...mapping, key], `unknown key "${key}"${within}${hint}`, "key");
    return;
  }
  report.error(
    [...mapping, key],
    `unknown key (not shown: it may be part of a secret)${within}`,
    "key",
    mapping,
  );
}

const unknownKeyAtRoot = (issues: readonly Issue[]): boolean =>
  issues.some((issue) => issue.code === "unrecognized_keys" && issue.path.length === 0);

/**
 * The refusals of the mapping the value was meant to be, when a union of mappings refuses it: the
 * option that knows all its keys (a `weekly:` window is not told that `weekly` is unknown), and of
 * those the one with fewest refusals. Undefined when no option's keys set it apart: the union's own
 * message stands.
 */
function intendedOption(options: readonly (readonly Issue[])[], at: Path): Issue[] | undefined {
  const fitting = options.filter((issues) => issues.length > 0 && !unknownKeyAtRoot(issues));
  if (fitting.length === 0 || fitting.length === options.length) return undefined;
  const best = fitting.reduce((a, b) => (b.length < a.length ? b : a));
  return best.map((issue) => ({ ...issue, path: [...at, ...issue.path] }) as Issue);
}

/** Turns zod's issues into positioned errors; an unknown key is reported at the key itself. */
export function reportZodIssues(error: z.ZodError, report: Reporter, context: IssueContext = {}): void {
  reportIssues(error.issues, report, context);
}

function reportIssues(issues: readonly Issue[], report: Reporter, context: IssueContext): void {
  for (const issue of issues) {
    const path = issue.path as PathSegment[];
    const intended = issue.code === "invalid_union" ? intendedOption(issue.errors, path) : undefined;
    if (intended) {
      reportIssues(intended, report, context);
      continue;
    }
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) reportUnknownKey(path, key, report, context);
      continue;
    }
    report.error(path, messageOf(issue, report.document.value));
  }
}

import type { z } from "zod";
import { type Path, type PathSegment, valueAt } from "./path.ts";
import type { Reporter } from "./report.ts";

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

/** Turns zod's issues into positioned errors; an unknown key is reported at the key itself. */
export function reportZodIssues(error: z.ZodError, report: Reporter): void {
  for (const issue of error.issues) {
    const path = issue.path as PathSegment[];
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) report.error([...path, key], `unknown key "${key}"`, "key");
      continue;
    }
    report.error(path, messageOf(issue, report.document.value));
  }
}

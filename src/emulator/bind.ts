import type { z } from "zod";
import { HttpFailure, message } from "./failure.ts";

/*
 * Request bodies bind leniently, as on real instances (.NET model binding):
 * - keys match the schema case-insensitively (`ID`, `RoleID`, `Username`);
 * - integers and booleans sent as strings ("5", "true") are converted;
 * - unknown keys are ignored;
 * - a value that can't be converted is a validation message, never a 500.
 */

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  options?: z.ZodType[];
};

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { def: Def }).def;
}

/** Follows wrappers down to the schema that says what shape the value has. */
function core(schema: z.ZodType): Def {
  let def = defOf(schema);
  for (;;) {
    if ((def.type === "optional" || def.type === "nullable" || def.type === "default") && def.innerType) {
      def = defOf(def.innerType);
    } else if (def.type === "pipe" && def.out) {
      // z.preprocess(fn, schema): the outer shape is the output schema's.
      def = defOf(def.out);
    } else {
      return def;
    }
  }
}

function coerce(schema: z.ZodType, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  const def = core(schema);
  switch (def.type) {
    case "number":
      if (typeof value === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
      return value;
    case "boolean":
      if (typeof value === "string") {
        const lower = value.trim().toLowerCase();
        if (lower === "true") return true;
        if (lower === "false") return false;
      }
      return value;
    case "string":
      if (typeof value === "number" || typeof value === "boolean") return String(value);
      return value;
    case "array":
      return Array.isArray(value) && def.element
        ? value.map((item) => coerce(def.element as z.ZodType, item))
        : value;
    case "object":
      return def.shape ? matchKeys(def.shape, value) : value;
    default:
      return value;
  }
}

/** Renames the input's keys to the schema's spelling, case-insensitively, and coerces their values. */
function matchKeys(shape: Record<string, z.ZodType>, value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const byLower = new Map(Object.keys(shape).map((key) => [key.toLowerCase(), key]));
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(value)) {
    const canonical = byLower.get(key.toLowerCase());
    if (canonical === undefined) {
      // Kept as sent, so that a preprocess step (for example `TimeZonCode`) can still see it.
      if (!(key in out)) out[key] = raw;
      continue;
    }
    out[canonical] = coerce(shape[canonical] as z.ZodType, raw);
  }
  return out;
}

/** Applies the lenient rules without validating. */
export function lenient(schema: z.ZodType, value: unknown): unknown {
  return coerce(schema, value);
}

/** Binds a body to a schema, or throws a 400 failure that lists every problem. */
export function bind<T extends z.ZodType>(schema: T, body: unknown, what = "request"): z.infer<T> {
  if (body === undefined || body === null || body === "") {
    throw new HttpFailure(
      400,
      message("RequestBodyMissing", `The ${what} body is missing or badly formatted.`),
    );
  }
  const result = schema.safeParse(lenient(schema, body));
  if (result.success) return result.data;
  const messages = result.error.issues.map((issue) => {
    const path = issue.path.join(".") || what;
    return message("InvalidValue", `${path}: ${issue.message}`, { erroredValue: valueAt(body, issue.path) });
  });
  throw new HttpFailure(400, messages);
}

function valueAt(body: unknown, path: PropertyKey[]): unknown {
  let current: unknown = body;
  for (const key of path) {
    if (current === null || typeof current !== "object") return null;
    const record = current as Record<string, unknown>;
    const match = Object.keys(record).find((k) => k.toLowerCase() === String(key).toLowerCase());
    current = match === undefined ? undefined : record[match];
  }
  if (current === undefined) return null;
  return typeof current === "object" ? null : current;
}

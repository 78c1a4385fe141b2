import type { z } from "zod";

/*
 * A shortcut for the common case of validation: a document that its schema accepts. A schema made
 * only of the constructs below is compiled into a plain function that returns what `safeParse`
 * would return as `data` (the same values, keys in the schema's order: the value itself when it
 * is already so), or NOT_SURE. NOT_SURE covers
 * every invalid document and anything the function does not know for certain; the caller then runs
 * the zod schema, whose issues (and paths) are the ones reported. So the shortcut can only make a
 * valid document cheaper, never change what is accepted or what an error says.
 *
 * Known: strict objects, arrays, strings (min/max length, regex), numbers (safe integer, bounds),
 * booleans, literals, enums, optional, nullable. Anything else (a transform, a default, a refinement,
 * a loose object, a string format) compiles to null: that schema always goes through zod.
 */

export const NOT_SURE: unique symbol = Symbol("not sure");
type Check = (value: unknown) => unknown;

/** The parts of zod's definitions this file reads (zod v4's `_zod.def`). */
interface Def {
  type: string;
  checks?: Array<{ _zod: { def: CheckDef } }>;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  innerType?: z.ZodType;
  values?: unknown[];
  entries?: Record<string, unknown>;
}

interface CheckDef {
  check: string;
  minimum?: number;
  maximum?: number;
  format?: string;
  pattern?: RegExp;
  value?: number;
  inclusive?: boolean;
  when?: (payload: { value: unknown; issues: unknown[] }) => boolean;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/*
 * The only keys each definition may have: anything more (a string format's `format`, a default, a
 * `when` on a check) is something this file does not know, so that schema goes through zod.
 */
const DEF_KEYS: Readonly<Record<string, ReadonlySet<string>>> = {
  object: new Set(["type", "shape", "catchall", "checks"]),
  array: new Set(["type", "element", "checks"]),
  string: new Set(["type", "checks"]),
  number: new Set(["type", "checks"]),
  boolean: new Set(["type", "checks"]),
  literal: new Set(["type", "values", "checks"]),
  enum: new Set(["type", "entries", "checks"]),
  optional: new Set(["type", "innerType", "checks"]),
  nullable: new Set(["type", "innerType", "checks"]),
};
/** Keys of a check's definition that do not change what it accepts (messages, when to stop). */
const CHECK_KEYS = new Set([
  "check",
  "minimum",
  "maximum",
  "format",
  "pattern",
  "value",
  "inclusive",
  "abort",
  "error",
  "type",
  "when",
]);

function knownDef(def: Def): boolean {
  const keys = DEF_KEYS[def.type];
  if (!keys || !Object.keys(def).every((key) => keys.has(key))) return false;
  return (def.checks ?? []).every(({ _zod }) => Object.keys(_zod.def).every((key) => CHECK_KEYS.has(key)));
}

/** Checks on a string or an array's length, or on a number; null when one is not known. */
function checksOf(def: Def, on: "string" | "array" | "number"): Array<(value: never) => boolean> | null {
  const out: Array<(value: never) => boolean> = [];
  for (const { _zod } of def.checks ?? []) {
    const check = _zod.def;
    if (check.check === "min_length" && on !== "number" && typeof check.minimum === "number") {
      const minimum = check.minimum;
      out.push((value: { length: number }) => value.length >= minimum);
    } else if (check.check === "max_length" && on !== "number" && typeof check.maximum === "number") {
      const maximum = check.maximum;
      out.push((value: { length: number }) => value.length <= maximum);
    } else if (
      check.check === "string_format" &&
      on === "string" &&
      check.format === "regex" &&
      check.pattern instanceof RegExp
    ) {
      const pattern = check.pattern;
      out.push((value: string) => {
        pattern.lastIndex = 0;
        return pattern.test(value);
      });
    } else if (check.check === "number_format" && on === "number" && check.format === "safeint") {
      out.push((value: number) => Number.isSafeInteger(value));
    } else if (check.check === "greater_than" && on === "number" && typeof check.value === "number") {
      const { value: bound, inclusive } = check;
      out.push((value: number) => (inclusive ? value >= bound : value > bound));
    } else if (check.check === "less_than" && on === "number" && typeof check.value === "number") {
      const { value: bound, inclusive } = check;
      out.push((value: number) => (inclusive ? value <= bound : value < bound));
    } else {
      return null;
    }
    // A check that zod would skip for this value (its `when`, e.g. length checks skip null) is not
    // one the shortcut can vouch for.
    const { when } = check;
    const test = out[out.length - 1] as (value: never) => boolean;
    if (when) out[out.length - 1] = (value: never) => when({ value, issues: [] }) === true && test(value);
  }
  return out;
}

const passes = (checks: ReadonlyArray<(value: never) => boolean>, value: unknown) =>
  checks.every((check) => check(value as never));

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function compileObject(def: Def): Check | null {
  // Strict objects only: an unknown key is an error there, which is zod's to report.
  if (!def.shape || !def.catchall || defOf(def.catchall).type !== "never") return null;
  if ((def.checks ?? []).length > 0) return null;
  const fields: Array<[string, Check, boolean]> = [];
  for (const [key, schema] of Object.entries(def.shape)) {
    const check = compile(schema);
    if (!check) return null;
    fields.push([key, check, isOptional(schema)]);
  }
  const known = new Set(fields.map(([key]) => key));
  return (value) => {
    if (!isPlainObject(value)) return NOT_SURE;
    const keys = Object.keys(value);
    for (const key of keys) if (!known.has(key) || value[key] === undefined) return NOT_SURE;
    // zod's output has the schema's keys in the schema's order: a value already written so, whose
    // parts need no copy either, is that output as it is (documents are read, never changed).
    let next = 0;
    let copy = false;
    for (const [key, check, optional] of fields) {
      if (!Object.hasOwn(value, key)) {
        if (optional) continue;
        return NOT_SURE;
      }
      const item = check(value[key]);
      if (item === NOT_SURE) return NOT_SURE;
      if (item !== value[key] || keys[next] !== key) copy = true;
      next += 1;
    }
    if (!copy) return value;
    const out: Record<string, unknown> = {};
    for (const [key, check] of fields) if (Object.hasOwn(value, key)) out[key] = check(value[key]);
    return out;
  };
}

function isOptional(schema: z.ZodType): boolean {
  return defOf(schema).type === "optional";
}

function compileUncached(schema: z.ZodType): Check | null {
  const def = defOf(schema);
  if (!knownDef(def)) return null;
  switch (def.type) {
    case "object":
      return compileObject(def);
    case "array": {
      const element = def.element && compile(def.element);
      const checks = checksOf(def, "array");
      if (!element || !checks) return null;
      return (value) => {
        if (!Array.isArray(value) || !passes(checks, value)) return NOT_SURE;
        let copy = false;
        for (const item of value) {
          const checked = element(item);
          if (checked === NOT_SURE) return NOT_SURE;
          if (checked !== item) copy = true;
        }
        return copy ? value.map(element) : value;
      };
    }
    case "string": {
      const checks = checksOf(def, "string");
      if (!checks) return null;
      return (value) => (typeof value === "string" && passes(checks, value) ? value : NOT_SURE);
    }
    case "number": {
      const checks = checksOf(def, "number");
      if (!checks) return null;
      return (value) =>
        typeof value === "number" && Number.isFinite(value) && passes(checks, value) ? value : NOT_SURE;
    }
    case "boolean":
      return (def.checks ?? []).length > 0
        ? null
        : (value) => (typeof value === "boolean" ? value : NOT_SURE);
    case "literal":
    case "enum": {
      if ((def.checks ?? []).length > 0) return null;
      const allowed = def.type === "literal" ? def.values : Object.values(def.entries ?? {});
      if (!allowed?.every((item) => typeof item === "string")) return null;
      const set = new Set(allowed);
      return (value) => (typeof value === "string" && set.has(value) ? value : NOT_SURE);
    }
    case "optional":
    case "nullable": {
      const inner = def.innerType && compile(def.innerType);
      if (!inner || (def.checks ?? []).length > 0) return null;
      // `undefined` never comes out of YAML; an absent optional key is handled by its object.
      const empty = def.type === "optional" ? undefined : null;
      return (value) => (value === empty ? value : inner(value));
    }
    default:
      return null;
  }
}

const compiled = new WeakMap<z.ZodType, Check | null>();

function compile(schema: z.ZodType): Check | null {
  if (!compiled.has(schema)) compiled.set(schema, compileUncached(schema));
  return compiled.get(schema) ?? null;
}

/**
 * `schema.safeParse(value)`, through the compiled shortcut when it is sure the value is valid:
 * the same `data` either way, and zod's issues whenever it is not.
 */
export function safeParseFast<T>(schema: z.ZodType<T>, value: unknown): z.ZodSafeParseResult<T> {
  const check = compile(schema);
  if (check) {
    const data = check(value);
    if (data !== NOT_SURE) return { success: true, data: data as T };
  }
  return schema.safeParse(value);
}

/** Whether the shortcut handles `schema` at all (for tests: a schema it can't compile always goes to zod). */
export function compilesFast(schema: z.ZodType): boolean {
  return compile(schema) !== null;
}

import { z } from "zod";
import type { SafeParse } from "./validate.ts";

/*
 * A shortcut for the common case of parsing: a value that its schema accepts. zod's parse builds a
 * copy of every object and array, with a result and an issue list per field; for the thousands of
 * manifest documents and API answers that are valid, and whose keys already come in the schema's
 * order, that copy equals its input and is garbage at once.
 *
 * A schema made only of the constructs below is compiled into a plain function that returns what
 * zod's parse would return: the value itself when zod's output would equal it (the same keys in
 * the same order, the same values), or (when asked to copy) the cheap copy zod would make (the shape's
 * keys in the shape's order, then a loose object's other keys in the input's order; a strip
 * object drops them), or NOT_SURE. NOT_SURE covers every invalid value and anything the function
 * does not know for certain (`undefined`, a key that is not a plain own key or that looks like an
 * array index, a value that is not plain data); the caller then runs zod, whose issues (and paths)
 * are the ones reported. So the shortcut can only make a valid value cheaper, never change what is
 * accepted or what an error says.
 *
 * It reads schemas through zod's public API only (`schema.def`, its `type`, `shape`, `element`,
 * `innerType`, `catchall`, `entries`, `values`, and the checks as values to pass back to zod): how
 * zod keeps a check's parameters is its own business. So a field with checks (a string's length or
 * pattern, a format, a bound) is left to zod itself, field by field, and taken as is when zod gives
 * back that very value; an array's checks run on a schema of zod's own that has only them.
 *
 * Known: objects (strict, loose, strip), arrays, strings, numbers, booleans, null, unknown/any,
 * literals and enums of plain values, optional, nullable. Anything else (a transform, a default, a
 * union, an object's refinement) compiles to null: that schema always goes through zod.
 *
 * The entry point, `safeParseFast`: as is, else the copy, else zod.
 */

const NOT_SURE: unique symbol = Symbol("not sure");
/** The value itself, zod's output (a copy), or NOT_SURE. */
type Shortcut = (value: unknown) => unknown;

/** The parts of a schema's public definition (`schema.def`) this file reads. */
interface Def {
  type: string;
  checks?: readonly z.core.$ZodCheck<never>[];
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  innerType?: z.ZodType;
  entries?: Record<string, unknown>;
  values?: readonly unknown[];
}

/** A schema's public definition; undefined for a schema that has none (not one of zod's classic schemas). */
function defOf(schema: z.ZodType): Def | undefined {
  const def = (schema as { def?: unknown }).def;
  return def !== null && typeof def === "object" && typeof (def as Def).type === "string"
    ? (def as Def)
    : undefined;
}

/*
 * The only keys each definition may have: anything more (a string format's `format`, a coercion's
 * `coerce`, a default, a schema that is itself a check like `z.int()`) is something this file does
 * not check itself. `error` only words zod's message.
 */
const DEF_KEYS: Readonly<Record<string, ReadonlySet<string>>> = {
  object: new Set(["type", "shape", "catchall", "checks", "error"]),
  array: new Set(["type", "element", "checks", "error"]),
  string: new Set(["type", "checks", "error"]),
  number: new Set(["type", "checks", "error"]),
  boolean: new Set(["type", "checks", "error"]),
  null: new Set(["type", "checks", "error"]),
  unknown: new Set(["type", "checks", "error"]),
  any: new Set(["type", "checks", "error"]),
  // Only as a strict object's catchall.
  never: new Set(["type", "checks", "error"]),
  literal: new Set(["type", "values", "checks", "error"]),
  enum: new Set(["type", "entries", "checks", "error"]),
  optional: new Set(["type", "innerType", "checks", "error"]),
  nullable: new Set(["type", "innerType", "checks", "error"]),
};

/** Schemas of a single value that zod gives back as it came when it accepts it unchanged. */
const LEAVES = new Set(["string", "number", "boolean", "null", "literal", "enum"]);

function knownDef(def: Def): boolean {
  const keys = DEF_KEYS[def.type];
  return keys !== undefined && Object.keys(def).every((key) => keys.has(key));
}

const unchecked = (def: Def) => (def.checks ?? []).length === 0;

/**
 * A single value with checks (a length, a pattern, a format, a bound, `z.int()`), left to zod
 * itself: as is when zod accepts it and gives back that very value (a trim that changes it does not).
 */
function checkedLeaf(schema: z.ZodType): Shortcut {
  return (value) => {
    if (value === undefined || (typeof value === "object" && value !== null) || typeof value === "function")
      return NOT_SURE;
    const parsed = schema.safeParse(value);
    return parsed.success && Object.is(parsed.data, value) ? value : NOT_SURE;
  };
}

/**
 * An array's own checks (its length), run by zod on a schema that has only them: its elements are
 * the element's shortcut's business, and this schema's copy of the array is a copy of references.
 */
function arrayChecks(def: Def): ((value: readonly unknown[]) => boolean) | undefined {
  if (unchecked(def)) return undefined;
  const lengths = z.array(z.unknown()).check(...(def.checks as z.core.$ZodCheck<unknown[]>[]));
  return (value) => lengths.safeParse(value).success;
}

/** Whether an object may leave this field out: zod's optional, also under a nullable. */
function mayBeAbsent(def: Def): boolean {
  if (def.type === "optional") return true;
  const inner = def.type === "nullable" && def.innerType ? defOf(def.innerType) : undefined;
  return inner !== undefined && mayBeAbsent(inner);
}

/** A key that looks like an array index: objects list such keys first, whatever the order of writes. */
function indexLike(key: string): boolean {
  const code = key.charCodeAt(0);
  return code >= 48 && code <= 57;
}

/*
 * The shortcuts of the plain fields that most objects are made of, one function each, so that an
 * object's fast path (objectFit) recognizes them and checks their values itself.
 */
const isString: Shortcut = (value) => (typeof value === "string" ? value : NOT_SURE);
const isSafeInteger: Shortcut = (value) => (Number.isSafeInteger(value) ? value : NOT_SURE);
const isBoolean: Shortcut = (value) => (typeof value === "boolean" ? value : NOT_SURE);
const isNullableString: Shortcut = (value) =>
  value === null || typeof value === "string" ? value : NOT_SURE;
const isNullableSafeInteger: Shortcut = (value) =>
  value === null || Number.isSafeInteger(value) ? value : NOT_SURE;
const NULLABLE = new Map<Shortcut, Shortcut>([
  [isString, isNullableString],
  [isSafeInteger, isNullableSafeInteger],
]);
const OTHER = 0;
const STRING = 1;
const NULLABLE_STRING = 2;
const SAFE_INTEGER = 3;
const NULLABLE_SAFE_INTEGER = 4;
const BOOLEAN = 5;
const INLINE = new Map<Shortcut, number>([
  [isString, STRING],
  [isNullableString, NULLABLE_STRING],
  [isSafeInteger, SAFE_INTEGER],
  [isNullableSafeInteger, NULLABLE_SAFE_INTEGER],
  [isBoolean, BOOLEAN],
]);

/** Whether `item` is its field's value as is: a plain field checked here, any other by its shortcut. */
function fitsAsIs(code: number, field: Shortcut, item: unknown): boolean {
  switch (code) {
    case STRING:
      return typeof item === "string";
    case NULLABLE_STRING:
      return item === null || typeof item === "string";
    case SAFE_INTEGER:
      return Number.isSafeInteger(item);
    case NULLABLE_SAFE_INTEGER:
      return item === null || Number.isSafeInteger(item);
    case BOOLEAN:
      return typeof item === "boolean";
    default:
      return field(item) === item;
  }
}

function objectFit(def: Def): Shortcut | null {
  const shape = def.shape ?? {};
  const keys = Object.keys(shape);
  // Symbol keys, and keys that objects list first whatever the order of writes (array indices).
  if (Object.getOwnPropertySymbols(shape).length > 0 || keys.some(indexLike) || keys.includes("__proto__")) {
    return null;
  }
  if (!unchecked(def)) return null;
  // Other keys: kept (loose), refused (strict), or dropped (strip, the default: never as is).
  let others: "loose" | "strict" | "strip" = "strip";
  if (def.catchall !== undefined) {
    const catchall = defOf(def.catchall);
    if (!catchall || !knownDef(catchall) || !unchecked(catchall)) return null;
    if (catchall.type === "unknown" || catchall.type === "any") others = "loose";
    else if (catchall.type === "never") others = "strict";
    else return null;
  }
  const fields: Shortcut[] = [];
  const omittable: boolean[] = [];
  for (const key of keys) {
    const field = shape[key] as z.ZodType;
    const shortcut = compile(field);
    // A field with a default compiles to null: zod fills an absent key in, which is never as is.
    if (!shortcut) return null;
    fields.push(shortcut);
    omittable.push(mayBeAbsent(defOf(field) as Def));
  }
  const indexOf = new Map(keys.map((key, index) => [key, index]));
  const strict = others === "strict";
  const strip = others === "strip";
  const loose = others === "loose";
  const inline = fields.map((field) => INLINE.get(field) ?? OTHER);
  const count = keys.length;

  /*
   * The common case, in one pass over the input's keys: every key of the shape, own, in the shape's
   * order, each value its field's as is (the plain fields checked here, not through their
   * shortcuts), then (loose) other keys. Anything else goes to the general check below, which decides.
   */
  const plainAsIs = (input: Record<string, unknown>): boolean => {
    let index = 0;
    let last: string | undefined;
    for (const key in input) {
      if (index === count) {
        if (!loose || key === "__proto__" || indexLike(key) || input[key] === undefined) return false;
      } else if (key !== keys[index]) {
        return false;
      } else {
        if (!fitsAsIs(inline[index] as number, fields[index] as Shortcut, input[key])) return false;
        index += 1;
      }
      last = key;
    }
    // Own keys come before inherited ones (for-in's order): when the last is own, all are.
    return index === count && (last === undefined || Object.hasOwn(input, last));
  };

  /*
   * A strip schema's copy in the common case: every key of the shape own and its value as is, in
   * any order, among other keys that the general check below would not doubt; the copy holds the
   * shape's keys in the shape's order, as zod's does. Anything else: NOT_SURE, and the general check.
   */
  const plainCopy = (input: Record<string, unknown>): unknown => {
    const out: Record<string, unknown> = {};
    for (let index = 0; index < count; index++) {
      const key = keys[index] as string;
      const item = input[key];
      if (item === undefined || !Object.hasOwn(input, key)) return NOT_SURE;
      if (!fitsAsIs(inline[index] as number, fields[index] as Shortcut, item)) return NOT_SURE;
      out[key] = item;
    }
    let last: string | undefined;
    for (const key in input) {
      if (key === "__proto__" || indexLike(key) || input[key] === undefined) return NOT_SURE;
      last = key;
    }
    return last === undefined || Object.hasOwn(input, last) ? out : NOT_SURE;
  };

  return (value) => {
    if (typeof value !== "object" || value === null || Object.getPrototypeOf(value) !== Object.prototype) {
      return NOT_SURE;
    }
    const input = value as Record<string, unknown>;
    if (plainAsIs(input)) return value;
    if (strip) {
      const copy = plainCopy(input);
      if (copy !== NOT_SURE) return copy;
    }
    let present = 0;
    let same = true;
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index] as string;
      if (!Object.hasOwn(input, key)) {
        if (key in input || !omittable[index]) return NOT_SURE;
        continue;
      }
      present += 1;
      const item = input[key];
      const fitted = (fields[index] as Shortcut)(item);
      if (fitted !== item) {
        if (fitted === NOT_SURE) return NOT_SURE;
        same = false;
      }
    }
    // The input's keys in its order: as is, the shape's first, in the shape's order, then the others.
    let known = 0;
    let last = -1;
    for (const key in input) {
      if (!Object.hasOwn(input, key) || key === "__proto__" || indexLike(key)) return NOT_SURE;
      const index = indexOf.get(key);
      if (index !== undefined) {
        if (index < last) same = false;
        last = index;
        known += 1;
      } else if (strict || input[key] === undefined) {
        return NOT_SURE;
      } else if (strip || known < present) {
        same = false;
      }
    }
    // A shape key that is own but not enumerable: not plain data.
    if (known !== present) return NOT_SURE;
    if (same) return value;
    const out: Record<string, unknown> = {};
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index] as string;
      if (Object.hasOwn(input, key)) out[key] = (fields[index] as Shortcut)(input[key]);
    }
    if (others === "loose") for (const key in input) if (!indexOf.has(key)) out[key] = input[key];
    return out;
  };
}

function arrayFit(def: Def): Shortcut | null {
  const element = def.element && compile(def.element);
  if (!element) return null;
  const test = arrayChecks(def);
  return (value) => {
    if (!Array.isArray(value) || Object.getPrototypeOf(value) !== Array.prototype) return NOT_SURE;
    if (test && !test(value)) return NOT_SURE;
    let same = true;
    for (let index = 0; index < value.length; index++) {
      const item = value[index];
      const fitted = element(item);
      if (fitted !== item) {
        if (fitted === NOT_SURE) return NOT_SURE;
        same = false;
      }
    }
    return same ? value : value.map(element);
  };
}

/** Values a literal or an enum may take that zod compares as JSON would. */
const plain = (item: unknown) => item === null || ["string", "number", "boolean"].includes(typeof item);

/** A literal's or an enum's values, each one zod itself accepts; null when one is not plain data. */
function valuesFit(schema: z.ZodType, def: Def): Shortcut | null {
  const candidates = def.type === "literal" ? (def.values ?? []) : Object.values(def.entries ?? {});
  if (!candidates.every(plain)) return null;
  const values = new Set(candidates.filter((value) => schema.safeParse(value).success));
  return (value) => (value !== undefined && values.has(value) ? value : NOT_SURE);
}

/** A single value with checks or parts this file does not check itself. */
function leafFit(schema: z.ZodType, def: Def): Shortcut {
  // `.int()`, the common check: ZodNumber's public `format` says it is the one check there is.
  const int = (schema as { format?: unknown }).format === "safeint";
  if (def.type === "number" && knownDef(def) && def.checks?.length === 1 && int) return isSafeInteger;
  return checkedLeaf(schema);
}

const isFiniteNumber: Shortcut = (value) =>
  typeof value === "number" && Number.isFinite(value) ? value : NOT_SURE;
const isNull: Shortcut = (value) => (value === null ? value : NOT_SURE);
const isPresent: Shortcut = (value) => (value === undefined ? NOT_SURE : value);

function compileUncached(schema: z.ZodType): Shortcut | null {
  const def = defOf(schema);
  if (!def) return null;
  const known = knownDef(def);
  if (LEAVES.has(def.type) && !(known && unchecked(def))) return leafFit(schema, def);
  if (!known) return null;
  switch (def.type) {
    case "object":
      return objectFit(def);
    case "array":
      return arrayFit(def);
    case "string":
      return isString;
    case "number":
      return isFiniteNumber;
    case "boolean":
      return isBoolean;
    case "null":
      return isNull;
    case "literal":
    case "enum":
      return valuesFit(schema, def);
    case "unknown":
    case "any":
      return unchecked(def) ? isPresent : null;
    case "nullable": {
      const inner = unchecked(def) && def.innerType && compile(def.innerType);
      if (!inner) return null;
      return NULLABLE.get(inner) ?? ((value) => (value === null ? value : inner(value)));
    }
    case "optional": {
      // A present value; an absent key is its object's business.
      const inner = unchecked(def) && def.innerType && compile(def.innerType);
      return inner ? (value) => (value === undefined ? NOT_SURE : inner(value)) : null;
    }
    default:
      return null;
  }
}

const compiled = new WeakMap<z.ZodType, Shortcut | null>();

function compile(schema: z.ZodType): Shortcut | null {
  const cache = compiled;
  let shortcut = cache.get(schema);
  if (shortcut === undefined) {
    // A schema that contains itself (a getter in its shape) meets itself here: no shortcut.
    cache.set(schema, null);
    shortcut = compileUncached(schema);
    cache.set(schema, shortcut);
  }
  return shortcut;
}

/**
 * `schema.safeParse(value)`, through the compiled shortcut when it is sure the value is valid: the
 * value itself or the same copy as zod's `data`, and zod's issues whenever it is not sure.
 */
export const safeParseFast: SafeParse = <S extends z.ZodType>(
  schema: S,
  value: unknown,
): z.ZodSafeParseResult<z.output<S>> => {
  const shortcut = compile(schema);
  if (shortcut) {
    const data = shortcut(value);
    if (data !== NOT_SURE) return { success: true, data: data as z.output<S> };
  }
  return schema.safeParse(value);
};

import type { z } from "zod";

/*
 * Whether a schema's parse would return a value equal to its input (a JSON value, as JSON.parse
 * returns it), decided without building zod's copy. Most reads of a plan (the trees of 200
 * applications, every user's contacts) answer objects whose keys already come in the schema's
 * order, and zod's copy of them, with a result and an issue list per field, is garbage at once.
 * "Equal" is strict: the same keys in the same order (zod writes the shape's keys in the shape's
 * order, then a loose object's other keys in the input's order; a strip object drops the others)
 * and the same values. Anything else (a failure, a key out of order, a key to drop, `undefined`, a
 * key that is not a plain own key, a value that is not plain JSON data) answers false, and the
 * caller asks zod: failures, their issues, and every copy come from zod. A schema with a part this
 * does not know (transforms, defaults, refinements, checks other than `.int()`, unions…) has no
 * predicate at all.
 */

/** True when zod's parse of `value` would succeed and return a value equal to `value`. */
export type AsIs = (value: unknown) => boolean;

const compiled = new WeakMap<z.ZodType, AsIs | null>();

/** The predicate of `schema`, or undefined when the schema has parts it does not know. */
export function asIsOf(schema: z.ZodType): AsIs | undefined {
  let predicate = compiled.get(schema);
  if (predicate === undefined) {
    predicate = compile(schema) ?? null;
    compiled.set(schema, predicate);
  }
  return predicate ?? undefined;
}

interface Def {
  type: string;
  checks?: Array<{ _zod: { def: { check?: string; format?: string } } }>;
  coerce?: boolean;
  innerType?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
}

const internals = (schema: z.ZodType) =>
  (schema as unknown as { _zod: { def: Def; values?: Set<unknown>; optin?: string; optout?: string } })._zod;

function compile(schema: z.ZodType): AsIs | undefined {
  const { def, values } = internals(schema);
  const checks = def.checks ?? [];
  if (def.coerce) return undefined;
  if (def.type === "number") return numberAsIs(checks);
  if (checks.length > 0) return undefined;
  switch (def.type) {
    case "string":
      return (value) => typeof value === "string";
    case "boolean":
      return (value) => typeof value === "boolean";
    case "null":
      return (value) => value === null;
    case "unknown":
    case "any":
      return (value) => value !== undefined;
    case "enum":
    case "literal":
      return values ? (value) => value !== undefined && values.has(value) : undefined;
    case "nullable":
      return wrapped(def.innerType, (inner) => (value) => value === null || inner(value));
    case "optional":
      // A present value; an absent key is the object's business.
      return wrapped(def.innerType, (inner) => (value) => value !== undefined && inner(value));
    case "array":
      return wrapped(def.element, arrayAsIs);
    case "object":
      return objectAsIs(def);
    default:
      return undefined;
  }
}

function wrapped(inner: z.ZodType | undefined, make: (inner: AsIs) => AsIs): AsIs | undefined {
  const predicate = inner && asIsOf(inner);
  return predicate ? make(predicate) : undefined;
}

function numberAsIs(checks: NonNullable<Def["checks"]>): AsIs | undefined {
  if (checks.length === 0) return (value) => typeof value === "number" && Number.isFinite(value);
  const only = checks.length === 1 ? checks[0]?._zod.def : undefined;
  // `.int()`: a safe integer.
  if (only?.check === "number_format" && only.format === "safeint") return Number.isSafeInteger;
  return undefined;
}

function arrayAsIs(element: AsIs): AsIs {
  return (value) => {
    if (!Array.isArray(value) || Object.getPrototypeOf(value) !== Array.prototype) return false;
    for (let index = 0; index < value.length; index++) if (!element(value[index])) return false;
    return true;
  };
}

function objectAsIs(def: Def): AsIs | undefined {
  const shape = def.shape ?? {};
  const keys = Object.keys(shape);
  // Symbol keys, and keys that objects list first whatever the order of writes (array indices).
  if (Object.getOwnPropertySymbols(shape).length > 0 || keys.some(indexLike) || keys.includes("__proto__")) {
    return undefined;
  }
  // Other keys: kept (loose), refused (strict), or dropped (strip, the default: never as is).
  let loose: boolean;
  if (def.catchall === undefined) loose = false;
  else {
    const others = internals(def.catchall).def;
    if ((others.checks ?? []).length > 0) return undefined;
    if (others.type === "unknown" || others.type === "any") loose = true;
    else if (others.type === "never") loose = false;
    else return undefined;
  }
  const fields: AsIs[] = [];
  const omittable: boolean[] = [];
  for (const key of keys) {
    const field = shape[key] as z.ZodType;
    const predicate = asIsOf(field);
    const { optin, optout } = internals(field);
    // An absent key is left out only where zod leaves it out; a default (optin "defaulted") is not.
    if (!predicate || (optin !== undefined && optin !== "optional")) return undefined;
    fields.push(predicate);
    omittable.push(optin === "optional" && optout === "optional");
  }
  const indexOf = new Map(keys.map((key, index) => [key, index]));

  return (value) => {
    if (typeof value !== "object" || value === null || Object.getPrototypeOf(value) !== Object.prototype) {
      return false;
    }
    const input = value as Record<string, unknown>;
    let present = 0;
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index] as string;
      if (!Object.hasOwn(input, key)) {
        if (key in input || !omittable[index]) return false;
        continue;
      }
      present += 1;
      if (!(fields[index] as AsIs)(input[key])) return false;
    }
    // The input's keys in its order: the shape's first, in the shape's order, then the others.
    let known = 0;
    let last = -1;
    for (const key in input) {
      if (!Object.hasOwn(input, key) || key === "__proto__" || indexLike(key)) return false;
      const index = indexOf.get(key);
      if (index !== undefined) {
        if (index < last) return false;
        last = index;
        known += 1;
      } else if (!loose || known < present || input[key] === undefined) {
        return false;
      }
    }
    // A shape key that is own but not enumerable: not plain JSON data.
    return known === present;
  };
}

/** A key that looks like an array index: objects list such keys first, whatever the order of writes. */
function indexLike(key: string): boolean {
  const code = key.charCodeAt(0);
  return code >= 48 && code <= 57;
}

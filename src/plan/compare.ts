import { configure } from "safe-stable-stringify";

/*
 * Comparison that ignores what the platform fills in or reorders (LESSONS 2): null, undefined, the
 * empty string and the empty list are the same; date-times compare as instants; arrays compare as given (callers
 * sort the ones whose order does not matter).
 */

const ISO = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;

function blank(value: unknown): boolean {
  return (
    value === null || value === undefined || value === "" || (Array.isArray(value) && value.length === 0)
  );
}

function instant(value: string): number | undefined {
  if (!ISO.test(value)) return undefined;
  // A date-time without a zone is read as UTC, as the platform stores it.
  const withZone = /T/.test(value) && !/(Z|[+-]\d{2}:?\d{2})$/.test(value) ? `${value}Z` : value;
  const time = Date.parse(withZone);
  return Number.isNaN(time) ? undefined : time;
}

const isOwnEnumerable = Object.prototype.propertyIsEnumerable;

export function same(a: unknown, b: unknown): boolean {
  // Identical values that are not objects are the same whatever the rules below say.
  if (a === b && (a === null || typeof a !== "object")) return true;
  if (blank(a) && blank(b)) return true;
  if (typeof a === "string" && typeof b === "string") {
    if (a === b) return true;
    const [x, y] = [instant(a), instant(b)];
    return x !== undefined && x === y;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, index) => same(item, b[index]));
  }
  if (a !== null && b !== null && typeof a === "object" && typeof b === "object") {
    // Every key of either, each once: a's, then b's that a lacks (no union set per object).
    const [x, y] = [a as Record<string, unknown>, b as Record<string, unknown>];
    for (const key of Object.keys(x)) if (!same(x[key], y[key])) return false;
    for (const key of Object.keys(y))
      if (!isOwnEnumerable.call(x, key) && !same(x[key], y[key])) return false;
    return true;
  }
  return a === b;
}

/**
 * Canonical JSON: keys sorted at every depth, so that equal values always serialize alike; otherwise
 * what JSON.stringify writes (toJSON, undefined in an array as null). A cycle throws, as it does there.
 */
const stringify = configure({ circularValue: TypeError, bigint: false });

export function canonicalJson(value: unknown): string {
  return stringify(value) ?? "null";
}

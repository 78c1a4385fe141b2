import { badRequest } from "./failure.ts";

/** A positive integer id from a path parameter, or a 400 naming the parameter. */
export function pathId(params: Readonly<Record<string, string>>, name: string): number {
  const raw = params[name] ?? "";
  if (!/^\d{1,9}$/.test(raw) || Number(raw) === 0) {
    const shown = raw.slice(0, 40);
    throw badRequest(
      "InvalidId",
      `The ${name} in the path must be a positive integer, not "${shown}".`,
      shown,
    );
  }
  return Number(raw);
}

import { InvalidArgumentError } from "./errors.ts";

/** Ids go into paths and queries: refuse anything but a whole number before a request is made. */
export function idOf(name: string, value: number): number {
  if (!Number.isSafeInteger(value)) {
    throw new InvalidArgumentError(`${name} must be a whole number, got ${JSON.stringify(value)}`);
  }
  return value;
}

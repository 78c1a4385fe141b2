import { createHash } from "node:crypto";

/**
 * A GUID derived from a name (a UUID of version 5's layout over SHA-1), so that the same object gets
 * the same GUID on every instance a seed builds, as objects promoted between real instances do.
 */
export function guidFor(name: string): string {
  const bytes = createHash("sha1").update(name).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

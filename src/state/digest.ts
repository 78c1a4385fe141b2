import { createHash } from "node:crypto";
import { configure } from "safe-stable-stringify";

/** Canonical JSON (keys sorted at every depth), the plan's `canonicalJson`. */
export const canonicalJson = configure({ circularValue: TypeError, bigint: false });

export const hash = (value: unknown) =>
  createHash("sha256")
    .update(canonicalJson(value) ?? "null")
    .digest("hex");

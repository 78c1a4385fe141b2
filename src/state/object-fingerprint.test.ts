import { describe, expect, it } from "vitest";
import { objectFingerprint } from "./package-objects.ts";

describe("a package object's fingerprint", () => {
  it("is canonical: the parts in the order another instance lists them give the same digest", () => {
    const parts = { "level:l-1": "a".repeat(64), "field:f-1": "b".repeat(64), "layout:y-1": "c".repeat(64) };
    const reordered = {
      "layout:y-1": "c".repeat(64),
      "field:f-1": "b".repeat(64),
      "level:l-1": "a".repeat(64),
    };
    expect(objectFingerprint(reordered)).toBe(objectFingerprint(parts));
    expect(objectFingerprint({ ...parts, "field:f-1": "d".repeat(64) })).not.toBe(objectFingerprint(parts));
  });
});

import { describe, expect, it } from "vitest";
import { isHashedTag, keyOfTag, TAG, tagOfKey } from "../../src/store/oci-tags.ts";

describe("record keys as OCI tags", () => {
  it("maps '/' to _S_ and reads the key back", () => {
    expect(tagOfKey("releases/2026.11.1")).toBe("releases_S_2026.11.1");
    expect(keyOfTag("releases_S_2026.11.1")).toBe("releases/2026.11.1");
    expect(tagOfKey("history/prod/0a1b2c3d4e5f")).toBe("history_S_prod_S_0a1b2c3d4e5f");
  });

  it("is injective where '_' and '-' already appear in segments", () => {
    const keys = [
      "a_/b",
      "a/_b",
      "a__b",
      "a/b_",
      "a_s_/b",
      "a/s/b",
      "a_s_b",
      "a-/b",
      "a/-b",
      "a/b/c",
      "a/b_c",
    ];
    const tags = keys.map(tagOfKey);
    expect(new Set(tags).size).toBe(keys.length);
    for (const [index, tag] of tags.entries()) {
      expect(tag).toMatch(TAG);
      expect(keyOfTag(tag)).toBe(keys[index]);
    }
  });

  it("gives a key too long for a tag a tag of 128 characters that ends with its sha256", () => {
    const long = `history/prod/${"x".repeat(100)}/${"y".repeat(40)}`;
    const other = `history/prod/${"x".repeat(100)}/${"z".repeat(40)}`;
    const tag = tagOfKey(long);
    expect(tag).toMatch(TAG);
    expect(tag.length).toBe(128);
    expect(tag.startsWith("history_S_prod_S_xxx")).toBe(true);
    expect(isHashedTag(tag)).toBe(true);
    expect(keyOfTag(tag)).toBeUndefined();
    expect(tagOfKey(other)).not.toBe(tag);
    expect(tagOfKey(`history/prod/${"x".repeat(100)}`).length).toBeLessThanOrEqual(128);
    expect(isHashedTag(tagOfKey(`history/prod/${"x".repeat(100)}`))).toBe(false);
  });

  it("reads no key from a tag no key makes", () => {
    expect(keyOfTag("latest")).toBe("latest");
    expect(keyOfTag("Latest")).toBeUndefined();
    expect(keyOfTag("a_S__S_b")).toBeUndefined();
    expect(keyOfTag("aSb")).toBeUndefined();
  });
});

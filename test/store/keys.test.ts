import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { environmentKey, KEY_SEGMENT, verifiedKey } from "../../src/store/index.ts";

describe("environment names as store keys", () => {
  it("keeps a name that is a key segment as it is", () => {
    expect(environmentKey("prod")).toBe("prod");
    expect(verifiedKey("2026.11.1", "test")).toBe("verified/2026.11.1/test");
  });

  it("gives a name that looks like another's hashed key a key of its own", () => {
    const test = environmentKey("Test");
    const lookalike = `env-${createHash("sha256").update("Test").digest("hex").slice(0, 16)}`;
    expect(environmentKey(lookalike)).not.toBe(test);
    expect(environmentKey(test)).not.toBe(test);
    expect(environmentKey("env-532eaabd9574880d")).not.toBe(environmentKey("Test"));
  });

  it("hashes a name that is not a segment with the whole sha256, and every key is a segment", () => {
    const names = ["Test", "test", "TEST", "prod eu", "env-x", "Prod", "prod"];
    const keys = names.map(environmentKey);
    expect(new Set(keys).size).toBe(names.length);
    for (const key of keys) expect(key).toMatch(KEY_SEGMENT);
    expect(environmentKey("Test")).toBe(`env-${createHash("sha256").update("Test").digest("hex")}`);
  });
});

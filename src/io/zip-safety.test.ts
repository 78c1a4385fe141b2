import { describe, expect, it } from "vitest";
import { isSymlinkEntry, unsafeEntryName, ZipSafety } from "./zip-safety.ts";

const entry = (fileName: string, uncompressedSize = 0, mode = 0o100644) => ({
  fileName,
  uncompressedSize,
  externalFileAttributes: (mode << 16) >>> 0,
});

describe("zip safety", () => {
  it("names that could escape the folder", () => {
    expect(unsafeEntryName("objects/a.json")).toBeUndefined();
    expect(unsafeEntryName("a..b/c")).toBeUndefined();
    expect(unsafeEntryName("../evil")).toBe("an entry name that climbs out of the folder");
    expect(unsafeEntryName("a/../../evil")).toBe("an entry name that climbs out of the folder");
    expect(unsafeEntryName("/etc/passwd")).toBe("an absolute entry name");
    expect(unsafeEntryName("C:/evil")).toBe("an absolute entry name");
    expect(unsafeEntryName("..\\evil")).toBe("a backslash in an entry name");
    expect(unsafeEntryName("a\0b")).toBe("a NUL in an entry name");
  });

  it("links by their Unix mode", () => {
    expect(isSymlinkEntry((0o120777 << 16) >>> 0)).toBe(true);
    expect(isSymlinkEntry((0o100644 << 16) >>> 0)).toBe(false);
    expect(isSymlinkEntry(0)).toBe(false);
  });

  it("counts entries and declared bytes across the directory", () => {
    const safety = new ZipSafety({ entries: 2, expandedBytes: 100 });
    expect(safety.check(entry("a", 60))).toBeUndefined();
    expect(safety.check(entry("b", 41))).toEqual({
      rule: "ExpandsTooFar",
      reason: "more than 100 bytes once expanded",
    });
    expect(safety.check(entry("c"))).toEqual({ rule: "TooManyEntries", reason: "more than 2 entries" });
    expect(new ZipSafety({ entries: 5, expandedBytes: 5 }).check(entry("l", 0, 0o120777))).toEqual({
      rule: "SymlinkEntry",
      reason: "a symbolic link entry",
    });
  });
});

import { describe, expect, it } from "vitest";
import { parseAllowed, parseSummary } from "./run-egp.ts";

describe("run-egp inputs", () => {
  it("read the allowed exit codes, 0 by default", () => {
    expect(parseAllowed(undefined)).toEqual([0]);
    expect(parseAllowed("")).toEqual([0]);
    expect(parseAllowed("0, 2")).toEqual([0, 2]);
    expect(() => parseAllowed("0,two")).toThrow('allowed-exit-codes: "two" is not an exit code');
  });

  it("read the summary mode, none by default", () => {
    expect(parseSummary(undefined)).toBe("none");
    expect(parseSummary("markdown")).toBe("markdown");
    expect(() => parseSummary("html")).toThrow('summary: "html" is not none, markdown or text');
  });
});

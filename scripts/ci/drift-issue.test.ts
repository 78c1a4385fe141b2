import { describe, expect, it } from "vitest";
import { decideDriftIssue } from "./drift-issue.ts";

describe("decideDriftIssue", () => {
  it("opens an issue on drift when none is open, and updates the oldest open one otherwise", () => {
    expect(decideDriftIssue(2, [])).toEqual({ action: "open" });
    expect(decideDriftIssue(2, [4, 9])).toEqual({ action: "update", issue: 4 });
  });

  it("closes every open one when there is no drift, and does nothing when none is open", () => {
    expect(decideDriftIssue(0, [4, 9])).toEqual({ action: "close", issues: [4, 9] });
    expect(decideDriftIssue(0, [])).toEqual({ action: "none" });
  });

  it("fails on any other exit code, whatever is open", () => {
    for (const code of [1, 3, 137]) {
      expect(decideDriftIssue(code, [4])).toEqual({
        action: "fail",
        reason: `egp drift exited with code ${code}; the drift issue is left as it is`,
      });
    }
  });
});

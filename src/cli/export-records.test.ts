import { describe, expect, it } from "vitest";
import { recordFlagsOf } from "./export-records.ts";

/* Which `egp export` runs are `--kind Record`, and the flag mixes refused before anything is read. */

const base = { env: "prod", out: "manifests" };

describe("recordFlagsOf", () => {
  it("takes --kind Record with --application, and a run without --kind as the other kinds' export", () => {
    expect(recordFlagsOf({ ...base, kind: "Record", application: "Third Parties" })).toBe(true);
    expect(
      recordFlagsOf({ ...base, kind: "record", application: "Third Parties", key: ["Vendor Name"] }),
    ).toBe(true);
    expect(recordFlagsOf(base)).toBe(false);
  });

  it.each([
    [{ application: "Controls" }, "--application: only with --kind Record"],
    [{ key: ["Control Name"] }, "--key: only with --kind Record"],
    [{ kind: "User" }, '--kind: "User" is not exported on its own'],
    [{ kind: "Record" }, "--kind Record: name the application with --application NAME"],
    [
      { kind: "Record", application: "Controls", target: ["User/a*"] },
      "--target and --include-login-user do not apply",
    ],
  ])("refuses %j", (flags, message) => {
    expect(() => recordFlagsOf({ ...base, ...flags })).toThrow(message);
  });
});

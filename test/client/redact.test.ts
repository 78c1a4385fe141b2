import { describe, expect, it } from "vitest";
import { REDACTED, Scrubber } from "../../src/client/redact.ts";

describe("Scrubber", () => {
  it("removes known secrets in raw, JSON-escaped and URL-encoded form", () => {
    const scrubber = new Scrubber(['pa"ss w&rd']);
    expect(scrubber.scrub('password is pa"ss w&rd')).toBe(`password is ${REDACTED}`);
    expect(scrubber.scrub('{"x":"pa\\"ss w&rd"}')).toBe(`{"x":"${REDACTED}"}`);
    expect(scrubber.scrub("q=pa%22ss%20w%26rd")).toBe(`q=${REDACTED}`);
  });

  it("removes tokens it was told about and session ids it was not", () => {
    const scrubber = new Scrubber();
    scrubber.add("AAAABBBBCCCCDDDDEEEEFFFF00001111");
    expect(scrubber.scrub("token AAAABBBBCCCCDDDDEEEEFFFF00001111 expired")).toBe(
      `token ${REDACTED} expired`,
    );
    expect(scrubber.scrub('Authorization: Platform session-id="XYZ123"')).toBe(
      `Authorization: Platform session-id="${REDACTED}"`,
    );
    expect(scrubber.scrub('{"NewPassword":"hunter2","x":1}')).toBe(`{"NewPassword":"${REDACTED}","x":1}`);
  });

  it("scrubs nested values without touching the original", () => {
    const scrubber = new Scrubber(["s3cret!"]);
    const original = { a: ["s3cret!", 1], b: { c: "x s3cret! y" } };
    expect(scrubber.scrubDeep(original)).toEqual({ a: [REDACTED, 1], b: { c: `x ${REDACTED} y` } });
    expect(original.a[0]).toBe("s3cret!");
  });

  it("ignores empty secrets", () => {
    const scrubber = new Scrubber(["", undefined]);
    expect(scrubber.scrub("nothing to hide")).toBe("nothing to hide");
  });
});

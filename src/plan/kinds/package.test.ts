import { describe, expect, it } from "vitest";
import { resolveObjectGuid } from "./package.ts";

describe("resolveObjectGuid", () => {
  const source = { objects: {}, applicationsByName: { "risk register": "a1b2" } };

  it("finds an application by its name, in any case", () => {
    expect(resolveObjectGuid({ by: "name", type: "Application", name: "Risk Register" }, source)).toBe(
      "a1b2",
    );
  });

  it("looks names up by the map's own keys: Object's built-in names resolve to nothing", () => {
    for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"])
      expect(resolveObjectGuid({ by: "name", type: "Application", name }, source)).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { desiredPackage } from "../../../test/builders/plan.ts";
import type { DesiredPackageObject } from "../../manifest/index.ts";
import { resolveObjectGuid } from "./package.ts";

const byName = (name: string): DesiredPackageObject =>
  desiredPackage("P", [name]).objects[0] as DesiredPackageObject;

describe("resolveObjectGuid", () => {
  const source = { objects: {}, applicationsByName: { "risk register": "a1b2" } };

  it("finds an application by its name, in any case", () => {
    expect(resolveObjectGuid(byName("Risk Register"), source)).toBe("a1b2");
  });

  it("looks names up by the map's own keys: Object's built-in names resolve to nothing", () => {
    for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"])
      expect(resolveObjectGuid(byName(name), source)).toBeUndefined();
  });
});

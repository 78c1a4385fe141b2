import { describe, expect, it } from "vitest";
import { queryString } from "../../src/client/caller.ts";
import { apiCoreRoute, route } from "../../src/client/route.ts";

describe("routes", () => {
  it("encode every interpolated segment and name the route by its template", () => {
    const r = route`/core/system/user/${"a/b?c#d e"}/x/${12}`;
    expect(r.path).toBe("/core/system/user/a%2Fb%3Fc%23d%20e/x/12");
    expect(r.template).toBe("/core/system/user/{}/x/{}");
    expect(r.family).toBe("platform");
    expect(apiCoreRoute`/core/package/download/${3}`.family).toBe("api-core");
  });

  it("query strings keep OData's $ and encode the rest", () => {
    expect(
      queryString([
        ["$filter", "Name eq 'A&B'"],
        ["id", "5"],
      ]),
    ).toBe("?$filter=Name%20eq%20'A%26B'&id=5");
    expect(queryString([])).toBe("");
  });
});

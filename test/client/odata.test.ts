import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../../src/client/errors.ts";
import { odataParams, odataText, renderFilter } from "../../src/client/odata.ts";

describe("OData options", () => {
  it("renders every option, in a fixed order", () => {
    expect(
      odataParams({
        orderBy: [{ field: "LastName", direction: "desc" }, "FirstName"],
        skip: 20,
        top: 10,
        select: ["UserName", "AccountStatus"],
        filter: { field: "AccountStatus", op: "eq", value: 1 },
      }),
    ).toEqual([
      ["$filter", "AccountStatus eq 1"],
      ["$select", "UserName,AccountStatus"],
      ["$top", "10"],
      ["$skip", "20"],
      ["$orderby", "LastName desc,FirstName"],
    ]);
    expect(odataParams(undefined)).toEqual([]);
  });

  it("quotes strings with doubled single quotes and writes other literals bare", () => {
    expect(renderFilter({ field: "LastName", op: "eq", value: "O'Brien" })).toBe("LastName eq 'O''Brien'");
    expect(renderFilter({ field: "IsComplete", op: "eq", value: false })).toBe("IsComplete eq false");
    expect(renderFilter({ field: "MiddleName", op: "ne", value: null })).toBe("MiddleName ne null");
    expect(renderFilter({ field: "DueDate", op: "lt", value: new Date("2026-01-05T00:00:00Z") })).toBe(
      "DueDate lt 2026-01-05T00:00:00.000Z",
    );
  });

  it("combines filters with and, or and not", () => {
    expect(
      renderFilter({
        and: [
          { field: "AccountStatus", op: "eq", value: 1 },
          {
            or: [{ field: "Title", op: "eq", value: "A" }, { not: { field: "Title", op: "eq", value: "B" } }],
          },
        ],
      }),
    ).toBe("(AccountStatus eq 1) and ((Title eq 'A') or (not (Title eq 'B')))");
  });

  it("refuses what it cannot render safely", () => {
    expect(() => odataParams({ top: -1 })).toThrow(InvalidArgumentError);
    expect(() => odataParams({ skip: 1.5 })).toThrow(/whole number/);
    expect(() => odataParams({ select: "Name; drop" })).toThrow(/not a field name/);
    expect(() => renderFilter({ field: "x", op: "like" as "eq", value: 1 })).toThrow(/unknown operator/);
    expect(() => renderFilter({ and: [] })).toThrow(/at least one/);
    expect(() => renderFilter({ field: "n", op: "eq", value: Number.NaN })).toThrow(/finite/);
  });

  it("writes one query text for bodies, escaping only % and &", () => {
    expect(odataText({ filter: { field: "IsComplete", op: "eq", value: false }, top: 5 })).toBe(
      "$filter=IsComplete eq false&$top=5",
    );
    expect(odataText({ filter: { field: "Title", op: "eq", value: "R&D 100%" } })).toBe(
      "$filter=Title eq 'R%26D 100%25'",
    );
    expect(odataText(undefined)).toBe("");
  });
});

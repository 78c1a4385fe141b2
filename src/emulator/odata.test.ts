import { describe, expect, it } from "vitest";
import {
  applyODataQuery,
  type FieldSpec,
  MAX_TOP,
  type ODataQuery,
  parseODataQuery,
  parseODataString,
  selectFields,
} from "./odata.ts";

interface Row {
  Id: number;
  Name: string | null;
  Done: boolean;
  Due: string | null;
  Info: { a: number } | null;
}

const KINDS: FieldSpec = { Id: "number", Name: "string", Done: "boolean", Due: "datetime", Info: "object" };

const ROWS: Row[] = [
  { Id: 1, Name: "alpha", Done: false, Due: "2026-01-10T00:00:00.000Z", Info: null },
  { Id: 2, Name: "Bravo", Done: true, Due: "2026-02-10T00:00:00.000Z", Info: { a: 1 } },
  { Id: 3, Name: "O'Neil", Done: false, Due: null, Info: null },
  { Id: 4, Name: null, Done: true, Due: "2026-03-10T00:00:00.000Z", Info: null },
  { Id: 5, Name: "charlie", Done: false, Due: "2026-01-20T12:00:00.000Z", Info: null },
];

const get = (row: Row, field: string) => row[field as keyof Row];

function run(query: Record<string, string>, spec: FieldSpec = KINDS): number[] {
  return applyODataQuery(ROWS, parseODataQuery(query, spec), get).map((row) => row.Id);
}

/** A 400 HttpFailure with an InvalidQuery message matching the pattern. */
function invalidQuery(pattern: RegExp) {
  return expect.objectContaining({
    name: "HttpFailure",
    status: 400,
    message: expect.stringMatching(pattern),
    messages: [expect.objectContaining({ MessageKey: "InvalidQuery" })],
  });
}

describe("$filter", () => {
  it("compares with eq, ne, gt, lt, ge and le", () => {
    expect(run({ $filter: "Id eq 2" })).toEqual([2]);
    expect(run({ $filter: "Id ne 2" })).toEqual([1, 3, 4, 5]);
    expect(run({ $filter: "Id gt 3" })).toEqual([4, 5]);
    expect(run({ $filter: "Id lt 3" })).toEqual([1, 2]);
    expect(run({ $filter: "Id ge 3" })).toEqual([3, 4, 5]);
    expect(run({ $filter: "Id le 3" })).toEqual([1, 2, 3]);
  });

  it("combines with and, or, not and parentheses, with and binding tighter than or", () => {
    expect(run({ $filter: "Id eq 1 or Id eq 2 and Done eq false" })).toEqual([1]);
    expect(run({ $filter: "(Id eq 1 or Id eq 2) and Done eq true" })).toEqual([2]);
    expect(run({ $filter: "not (Id le 3)" })).toEqual([4, 5]);
    expect(run({ $filter: "not Done" })).toEqual([1, 3, 5]);
    expect(run({ $filter: "Done" })).toEqual([2, 4]);
  });

  it("reads string literals with '' escapes and compares text case-insensitively", () => {
    expect(run({ $filter: "Name eq 'O''Neil'" })).toEqual([3]);
    expect(run({ $filter: "Name eq 'BRAVO'" })).toEqual([2]);
    expect(run({ $filter: "Name gt 'b'" })).toEqual([2, 3, 5]);
  });

  it("handles null: eq null matches missing values, ordering with null is false", () => {
    expect(run({ $filter: "Name eq null" })).toEqual([4]);
    expect(run({ $filter: "Name ne null" })).toEqual([1, 2, 3, 5]);
    expect(run({ $filter: "Due lt 2030-01-01" })).toEqual([1, 2, 4, 5]);
  });

  it("compares date-times by instant, quoted or not", () => {
    expect(run({ $filter: "Due lt 2026-01-20T12:00:00Z" })).toEqual([1]);
    expect(run({ $filter: "Due le '2026-01-20T12:00:00Z'" })).toEqual([1, 5]);
    expect(run({ $filter: "Due gt 2026-01-20T13:00:00+02:00" })).toEqual([2, 4, 5]);
  });

  it("matches field names, keywords and literals case-insensitively", () => {
    expect(run({ $FILTER: "id EQ 2 OR done eq TRUE" })).toEqual([2, 4]);
  });

  it("accepts a literal on the left and numbers with decimals or signs", () => {
    expect(run({ $filter: "3 lt Id" })).toEqual([4, 5]);
    expect(run({ $filter: "Id gt -1.5" })).toEqual([1, 2, 3, 4, 5]);
  });

  it("works without field kinds", () => {
    expect(run({ $filter: "Done eq true and Id gt 2" }, ["Id", "Name", "Done", "Due", "Info"])).toEqual([4]);
  });

  it.each([
    ["Nope eq 1", /unknown field 'Nope'/],
    ["Id eq", /ends where a field or a value was expected/],
    ["Id 2", /unexpected '2'.*comparison operator/],
    ["Id eq 1 and", /ends where a field or a value was expected/],
    ["(Id eq 1", /ends where '\)' was expected/],
    ["Id eq 1)", /unexpected '\)'.*should end/],
    ["Name eq 'open", /unterminated string/],
    ["Id eq 1 # 2", /unexpected '#'/],
    ["Id eq 'x'", /'Id' is a number and cannot be compared with a string/],
    ["Done gt false", /only eq and ne apply/],
    ["Info eq null", /'Info' cannot be compared/],
    ["Due lt 2026-13-45", /not a valid date-time/],
    ["Name", /comparison operator/],
    ["", /is empty/],
  ])("refuses %j with a 400 naming the problem", (filter, pattern) => {
    expect(() => parseODataQuery({ $filter: filter }, KINDS)).toThrow(invalidQuery(/^\$filter: /));
    expect(() => parseODataQuery({ $filter: filter }, KINDS)).toThrow(invalidQuery(pattern));
  });
});

describe("$select, $top, $skip, $orderby", () => {
  it("pages with $skip and $top", () => {
    expect(run({ $skip: "1", $top: "2" })).toEqual([2, 3]);
    expect(run({ $skip: "4", $top: "10" })).toEqual([5]);
    expect(run({ $top: "0" })).toEqual([]);
  });

  it("sorts stably by a comma list of fields with directions, nulls first", () => {
    expect(run({ $orderby: "Name" })).toEqual([4, 1, 2, 5, 3]);
    expect(run({ $orderby: "Name desc" })).toEqual([3, 5, 2, 1, 4]);
    expect(run({ $orderby: "Done desc, Id desc" })).toEqual([4, 2, 5, 3, 1]);
    expect(run({ $orderby: "Done" })).toEqual([1, 3, 5, 2, 4]);
  });

  it("applies filter, then order, then skip and top", () => {
    expect(run({ $filter: "Done eq false", $orderby: "Id desc", $skip: "1", $top: "1" })).toEqual([3]);
  });

  it("projects rows with $select, in canonical spelling", () => {
    const query = parseODataQuery({ $select: "name, ID" }, KINDS);
    expect(query.select).toEqual(["Name", "Id"]);
    expect(selectFields(ROWS[0] as Row, query, get)).toEqual({ Name: "alpha", Id: 1 });
    const all: ODataQuery = parseODataQuery({ $select: "*" }, KINDS);
    expect(selectFields(ROWS[0] as Row, all, get)).toBe(ROWS[0]);
  });

  it("ignores keys that are not $ options", () => {
    expect(run({ id: "5", $top: "1" })).toEqual([1]);
  });

  it.each([
    [{ $top: "-1" }, /^\$top: must be a non-negative integer/],
    [{ $top: "abc" }, /^\$top: must be a non-negative integer/],
    [{ $top: String(MAX_TOP + 1) }, /^\$top: must be at most 1000/],
    [{ $skip: "1.5" }, /^\$skip: must be a non-negative integer/],
    [{ $select: "Id,,Name" }, /^\$select: has an empty field name/],
    [{ $select: "Id,Bogus" }, /^\$select: unknown field 'Bogus'/],
    [{ $orderby: "Id sideways" }, /^\$orderby: 'Id sideways' is not of the form/],
    [{ $orderby: "Bogus" }, /^\$orderby: unknown field/],
    [{ $orderby: "Info" }, /^\$orderby: cannot sort by 'Info'/],
    [{ $expand: "Info" }, /^\$expand: is not supported/],
  ])("refuses %j", (query, pattern) => {
    expect(() => parseODataQuery(query, KINDS)).toThrow(invalidQuery(pattern));
  });

  it("refuses an option given twice", () => {
    expect(() => parseODataQuery({ $top: ["1", "2"] }, KINDS)).toThrow(/given more than once/);
  });
});

describe("parseODataString", () => {
  it("splits the task read's Value string", () => {
    expect(parseODataString("$skip=0&$top=10&$filter=IsComplete eq false")).toEqual({
      $skip: "0",
      $top: "10",
      $filter: "IsComplete eq false",
    });
  });

  it("keeps & inside quoted literals, decodes percent escapes and ignores a leading ?", () => {
    expect(parseODataString("?$filter=Name eq 'A&B'&$top=1")).toEqual({
      $filter: "Name eq 'A&B'",
      $top: "1",
    });
    expect(parseODataString("$filter=Id%20eq%202")).toEqual({ $filter: "Id eq 2" });
    expect(parseODataString("")).toEqual({});
  });

  it("refuses a part without = and a repeated option", () => {
    expect(() => parseODataString("$top")).toThrow(/not of the form \$option=value/);
    expect(() => parseODataString("$top=1&$TOP=2")).toThrow(/given more than once/);
  });
});

describe("per-call options and kinds", () => {
  it("refuses an option the call does not take, naming the ones it does", () => {
    expect(() => parseODataQuery({ $filter: "Id eq 1" }, KINDS, { allow: ["$select"] })).toThrow(
      invalidQuery(/^\$filter: is not allowed here: this call takes only \$select\./),
    );
    expect(() => parseODataQuery({ $top: "1" }, KINDS, { allow: [] })).toThrow(
      invalidQuery(/this call takes no query options/),
    );
    expect(parseODataQuery({ $SELECT: "Name", id: "3" }, KINDS, { allow: ["$select"] }).select).toEqual([
      "Name",
    ]);
  });

  it("reads a quoted number compared with a numeric field as the number, on either side", () => {
    expect(run({ $filter: "Id eq '3'" })).toEqual([3]);
    expect(run({ $filter: "'2' ge Id" })).toEqual([1, 2]);
    expect(run({ $filter: "Id gt '2.5' and Id lt ' 5 '" })).toEqual([3, 4]);
    expect(() => parseODataQuery({ $filter: "Id eq '3x'" }, KINDS)).toThrow(invalidQuery(/is a number/));
    expect(() => parseODataQuery({ $filter: "Id eq ''" }, KINDS)).toThrow(invalidQuery(/is a number/));
  });

  it("accepts a name without a kind alongside typed ones, without type checks for it", () => {
    const spec: FieldSpec = { Id: "number", Name: undefined };
    expect(run({ $filter: "Name eq 'bravo' or Id eq 5" }, spec)).toEqual([2, 5]);
    expect(() => parseODataQuery({ $filter: "Id eq 'x'" }, spec)).toThrow(invalidQuery(/is a number/));
  });
});

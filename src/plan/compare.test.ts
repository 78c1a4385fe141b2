import { describe, expect, it } from "vitest";
import { canonicalJson, same } from "./compare.ts";

describe("same", () => {
  it("treats null, undefined, empty strings and empty lists alike", () => {
    for (const [a, b] of [
      [null, undefined],
      ["", null],
      [[], null],
      [undefined, []],
    ]) {
      expect(same(a, b)).toBe(true);
    }
    expect(same([], [1])).toBe(false);
    expect(same("", "x")).toBe(false);
    expect(same(0, null)).toBe(false);
    expect(same(false, null)).toBe(false);
  });

  it("compares date-times as instants, a time without a zone as UTC", () => {
    expect(same("2026-12-25T00:00:00", "2026-12-25T00:00:00Z")).toBe(true);
    expect(same("2026-12-25T00:00:00.000Z", "2026-12-25T01:00:00+01:00")).toBe(true);
    expect(same("2026-12-25T00:00:00", "2026-12-26T00:00:00")).toBe(false);
  });

  it("compares objects key by key and arrays in order", () => {
    expect(same({ a: 1, b: null }, { a: 1 })).toBe(true);
    expect(same([1, 2], [2, 1])).toBe(false);
    // A key that only one side has counts, whichever side it is on.
    expect(same({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(same({ a: 1, b: 2 }, { a: 1 })).toBe(false);
    expect(same({ a: 1 }, { b: "", a: 1 })).toBe(true);
    expect(same([{ x: [1] }], [{ x: [1], y: "2026-01-01T00:00:00Z" }])).toBe(false);
  });
});

describe("canonicalJson", () => {
  it("sorts keys at every depth", () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: [3, { f: 4, e: 5 }] } })).toBe(
      '{"a":{"c":[3,{"e":5,"f":4}],"d":2},"b":1}',
    );
  });
});

describe("canonicalJson agrees with JSON.stringify", () => {
  it("for everything but key order", () => {
    const value = {
      z: [1, "two", null, undefined, { y: true, x: false }],
      a: 'é\n"',
      n: -0.5,
      d: new Date(0),
      skip: undefined,
    };
    expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
    expect(canonicalJson(value).indexOf('"a"')).toBeLessThan(canonicalJson(value).indexOf('"z"'));
  });

  it("for undefined, and for a cycle, which throws", () => {
    expect(canonicalJson(undefined)).toBe("null");
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    expect(() => JSON.stringify(cycle)).toThrow(TypeError);
    expect(() => canonicalJson(cycle)).toThrow(TypeError);
  });
});

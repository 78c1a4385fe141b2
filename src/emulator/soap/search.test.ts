import { describe, expect, it } from "vitest";
import type { StoredRecord } from "../content/model.ts";
import { operatorLogic } from "./search.ts";

/** Conditions that hold for records whose id is in the set. */
const holds =
  (...ids: number[]) =>
  (record: StoredRecord) =>
    ids.includes(record.Id);
const record = (Id: number) => ({ Id }) as StoredRecord;

describe("operatorLogic", () => {
  const conditions = [holds(1, 2), holds(2, 3), holds(3)];
  const matching = (text: string) => [1, 2, 3, 4].filter((id) => operatorLogic(text, conditions)(record(id)));

  it("combines numbered conditions; AND binds tighter than OR", () => {
    expect(matching("1 AND 2")).toEqual([2]);
    expect(matching("1 OR 3")).toEqual([1, 2, 3]);
    expect(matching("3 OR 1 AND 2")).toEqual([2, 3]);
    expect(matching("(3 OR 1) AND 2")).toEqual([2, 3]);
    expect(matching("not 1")).toEqual([3, 4]);
    expect(matching("1 and not (2 or 3)")).toEqual([1]);
  });

  it("refuses what is not an expression of its conditions", () => {
    expect(() => operatorLogic("1 AND 4", conditions)).toThrow(/OperatorLogic/);
    expect(() => operatorLogic("1 2", conditions)).toThrow(/OperatorLogic/);
    expect(() => operatorLogic("(1", conditions)).toThrow(/OperatorLogic/);
    expect(() => operatorLogic("1 XOR 2", conditions)).toThrow(/OperatorLogic/);
    expect(() => operatorLogic("", conditions)).toThrow(/OperatorLogic/);
  });

  it("bounds nesting and length", () => {
    expect(() => operatorLogic(`${"(".repeat(200)}1${")".repeat(200)}`, conditions)).toThrow(/OperatorLogic/);
    expect(() => operatorLogic(Array.from({ length: 600 }, () => "1").join(" AND "), conditions)).toThrow(
      /too long/,
    );
  });
});

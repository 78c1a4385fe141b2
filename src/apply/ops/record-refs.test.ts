import { describe, expect, it } from "vitest";
import { sentValue } from "./record-refs.ts";
import type { OpContext } from "./types.ts";

/*
 * A reference field's value as a record's step sends it: live records by their content ids, a
 * record the same apply created by the id its creating step answered.
 */

const REFERENCES = {
  references: [
    { contentId: 1002, levelId: 7 },
    { step: 'Record/Risk Register "Data leak"#create', levelId: 7 },
  ],
};

function contextWith(outputs: Record<string, Record<string, unknown>>): OpContext {
  const context: Pick<OpContext, "outputOf" | "step"> = {
    outputOf: (id) => outputs[id],
    step: {
      id: 'Record/Controls "AC-9"#create',
      change: "",
      op: "record.create",
      environment: "prod",
      dependsOn: [],
      input: {},
    },
  };
  return context as OpContext;
}

describe("a record step's references", () => {
  it("sends related records as ids and a cross-reference as {ContentId, LevelId}, created ones by their new id", () => {
    const context = contextWith({ 'Record/Risk Register "Data leak"#create': { id: 1012 } });
    expect(sentValue(context, { fieldId: 202, type: 23, value: REFERENCES })).toEqual([1002, 1012]);
    expect(sentValue(context, { fieldId: 203, type: 9, value: REFERENCES })).toEqual([
      { ContentId: 1002, LevelId: 7 },
      { ContentId: 1012, LevelId: 7 },
    ]);
    expect(sentValue(context, { fieldId: 204, type: 1, value: "text" })).toBe("text");
  });

  it("fails the step, sending nothing, when the creating step has no id", () => {
    expect(() => sentValue(contextWith({}), { fieldId: 202, type: 23, value: REFERENCES })).toThrow(
      expect.objectContaining({ code: "EGP_STEP_INPUT_MISSING" }),
    );
  });
});

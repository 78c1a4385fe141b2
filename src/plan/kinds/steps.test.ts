import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CHANGE_ACTIONS } from "../actions.ts";
import { BUILT_IN_STEPS, stepKinds } from "./steps.ts";

/* Each kind's own declaration of which ops each action of a change may run, as `stepKinds` reads it. */

describe("the ops each action of a kind may run", () => {
  it("come from each kind's declaration, and every op of every kind is run by some action", () => {
    const { opsOf, kinds, ops } = BUILT_IN_STEPS;
    expect(opsOf("Package", "promote")).toContain("package.fetch");
    expect(opsOf("Package", "rollback")).toEqual([
      "package.upload",
      "package.install",
      "package.rollback-verify",
    ]);
    expect(opsOf("User", "update")).toEqual(["user.update", "user.activate", "user.deactivate"]);
    expect(opsOf("SecurityParameter", "promote")).toEqual([]);
    expect(opsOf("Widget", "create")).toEqual([]);
    const declared = kinds.flatMap((kind) => CHANGE_ACTIONS.flatMap((action) => opsOf(kind, action)));
    expect(ops.filter((op) => !declared.includes(op))).toEqual([]);
  });

  it("refuse a declaration that names an op the kind lacks, leaves an op unrun, or declares nothing", () => {
    const ops = { "thing.add": z.object({}), "thing.remove": z.object({}) };
    const list = (thing: object) => stepKinds([thing as never]);
    expect(() => list({ kind: "Thing", ops, actions: { update: ["thing.add", "thing.grow"] } })).toThrow(
      "kind Thing action update runs thing.grow, which is not one of its ops",
    );
    expect(() => list({ kind: "Thing", ops, actions: { update: ["thing.add"] } })).toThrow(
      "kind Thing no action runs its op thing.remove",
    );
    // A kind declared without actions, as a plugin written before they existed would be.
    expect(() => list({ kind: "Thing", ops })).toThrow(/^kind Thing declares no actions/);
    expect(BUILT_IN_STEPS.kinds).not.toContain("Thing");
  });

  it("refuse a kind or an op listed twice", () => {
    const ops = { "thing.add": z.object({}) };
    const thing = { kind: "Thing", ops, actions: { update: ["thing.add"] } };
    expect(() => stepKinds([thing, thing])).toThrow("kind Thing is listed twice");
    expect(() => stepKinds([thing, { ...thing, kind: "Other" }])).toThrow(
      "step op thing.add of Other is also an op of Thing",
    );
  });
});

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CHANGE_ACTIONS } from "../actions.ts";
import { CHANGE_KINDS, opsOf, registerKindSteps, STEP_OPS } from "./steps.ts";

/* The kind registry's own declaration of which ops each action of a change may run. */

describe("the ops each action of a kind may run", () => {
  it("come from each kind's declaration, and every op of every kind is run by some action", () => {
    expect(opsOf("Package", "promote")).toContain("package.fetch");
    expect(opsOf("Package", "rollback")).toEqual([
      "package.upload",
      "package.install",
      "package.rollback-verify",
    ]);
    expect(opsOf("User", "update")).toEqual(["user.update", "user.activate", "user.deactivate"]);
    expect(opsOf("SecurityParameter", "promote")).toEqual([]);
    expect(opsOf("Widget", "create")).toEqual([]);
    const declared = CHANGE_KINDS.flatMap((kind) => CHANGE_ACTIONS.flatMap((action) => opsOf(kind, action)));
    expect(STEP_OPS.filter((op) => !declared.includes(op))).toEqual([]);
  });

  it("refuse a declaration that names an op the kind lacks, leaves an op unrun, or declares nothing", () => {
    const ops = { "thing.add": z.object({}), "thing.remove": z.object({}) };
    expect(() =>
      registerKindSteps({ kind: "Thing", ops, actions: { update: ["thing.add", "thing.grow"] } }),
    ).toThrow("kind Thing action update runs thing.grow, which is not one of its ops");
    expect(() => registerKindSteps({ kind: "Thing", ops, actions: { update: ["thing.add"] } })).toThrow(
      "kind Thing no action runs its op thing.remove",
    );
    // A kind declared without actions, as a plugin written before they existed would be.
    expect(() => registerKindSteps({ kind: "Thing", ops } as never)).toThrow(
      /^kind Thing declares no actions/,
    );
    expect(CHANGE_KINDS).not.toContain("Thing");
  });
});

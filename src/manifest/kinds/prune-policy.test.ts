import { describe, expect, it } from "vitest";
import { BUILT_IN_DOCUMENT_KINDS, NO_PRUNING } from "./index.ts";
import { noPruning, prunePolicySchema } from "./prune-policy.ts";

/* The prune options derive from the kinds listed, not from a field per kind, so a new kind adds its own. */

describe("PrunePolicy from the kinds listed", () => {
  it("speaks of the kinds that declare a prune choice, under their plural", () => {
    expect(BUILT_IN_DOCUMENT_KINDS.prunable.map((kind) => [kind.plural, kind.prune.values])).toEqual([
      ["securityParameters", ["ignore", "delete"]],
      ["users", ["ignore", "deactivate", "delete"]],
    ]);
    expect(NO_PRUNING).toEqual({
      kind: "PrunePolicy",
      securityParameters: "ignore",
      users: "ignore",
      exclude: { securityParameters: [], users: [] },
      source: null,
    });
  });

  it("gains a field and an exclude list for a new prunable kind, with nothing written for it here", () => {
    const widgets = {
      plural: "widgets",
      prune: { values: ["keep", "shred"] as const, description: "Widgets." },
    };
    const schema = prunePolicySchema([...BUILT_IN_DOCUMENT_KINDS.prunable, widgets]);
    const written = { kind: "PrunePolicy", users: "delete", widgets: "shred", exclude: { widgets: ["w*"] } };
    expect(schema.safeParse(written).success).toBe(true);
    expect(schema.safeParse({ kind: "PrunePolicy", widgets: "delete" }).success).toBe(false);
    expect(noPruning([widgets])).toEqual({
      kind: "PrunePolicy",
      widgets: "keep",
      exclude: { widgets: [] },
      source: null,
    });
  });
});

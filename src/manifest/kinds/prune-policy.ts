import { z } from "zod";
import type { SourceLocation } from "../errors.ts";
import { defineKind, scoping, sourceOf } from "./kind.ts";

export const PrunePolicyDocument = z
  .strictObject({
    kind: z.literal("PrunePolicy"),
    ...scoping,
    users: z
      .enum(["ignore", "deactivate", "delete"])
      .optional()
      .describe("Live users the manifests do not name: ignore (default), deactivate or delete."),
    securityParameters: z
      .enum(["ignore", "delete"])
      .optional()
      .describe("Live security parameters the manifests do not name: ignore (default) or delete."),
  })
  .describe("What to do with live objects that no manifest names. At most one applies per environment.");
export type PrunePolicyDocument = z.infer<typeof PrunePolicyDocument>;

export type UserPrune = "ignore" | "deactivate" | "delete";
export type SecurityParameterPrune = "ignore" | "delete";

export interface DesiredPrunePolicy {
  kind: "PrunePolicy";
  users: UserPrune;
  securityParameters: SecurityParameterPrune;
  /** Where the policy is written; null when no document sets one (everything is ignored). */
  source: SourceLocation | null;
}

/** The policy of an environment that has no PrunePolicy document: nothing is pruned. */
export const NO_PRUNING: DesiredPrunePolicy = Object.freeze({
  kind: "PrunePolicy",
  users: "ignore",
  securityParameters: "ignore",
  source: null,
});

export const prunePolicyKind = defineKind({
  kind: "PrunePolicy",
  plural: "prunePolicies",
  schema: PrunePolicyDocument,
  rules: [],
  key: { field: "kind", of: () => "" },
  normalize(doc, _environment, report): DesiredPrunePolicy {
    return {
      kind: "PrunePolicy",
      users: doc.users ?? "ignore",
      securityParameters: doc.securityParameters ?? "ignore",
      source: sourceOf(report, "kind"),
    };
  },
});

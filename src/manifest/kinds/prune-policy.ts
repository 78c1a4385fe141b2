import { z } from "zod";
import type { SourceLocation } from "../errors.ts";
import { defineKind, type Kind, type PruneChoice, scoping, sourceOf } from "./kind.ts";

/*
 * The PrunePolicy document is derived from the kinds that declare a `prune` choice: one field per
 * such kind, under its plural, and one list under `exclude`. A new prunable kind adds nothing here.
 */

/** A kind that live objects of may be pruned. */
export interface PrunableKind {
  plural: string;
  prune: PruneChoice;
}

export function isPrunable<K extends { prune?: PruneChoice | undefined }>(kind: K): kind is K & PrunableKind {
  return kind.prune !== undefined;
}

/** The policy as normalized: each prunable kind's choice under its plural, and its exclusions. */
export interface PrunePolicyShape {
  kind: "PrunePolicy";
  /** Names, case-insensitive, `*` matching any run of characters: never pruned. */
  exclude: Readonly<Record<string, readonly string[]>>;
  /** Where the policy is written; null when no document sets one (everything is ignored). */
  source: SourceLocation | null;
}

const excludeList = (plural: string) =>
  z
    .array(z.string().min(1))
    .optional()
    .describe(`${plural} never pruned, by name: case-insensitive, * matches any run of characters.`);

export function prunePolicySchema(kinds: readonly PrunableKind[]) {
  return z
    .strictObject({
      kind: z.literal("PrunePolicy"),
      ...scoping,
      ...Object.fromEntries(
        kinds.map((kind) => [
          kind.plural,
          z.enum(kind.prune.values).optional().describe(kind.prune.description),
        ]),
      ),
      exclude: z
        .strictObject(Object.fromEntries(kinds.map((kind) => [kind.plural, excludeList(kind.plural)])))
        .optional()
        .describe("Live objects never pruned, listed as excluded rather than unmanaged."),
    })
    .describe("What to do with live objects that no manifest names. At most one applies per environment.");
}

/** The policy of an environment that has no PrunePolicy document: nothing is pruned. */
export function noPruning(kinds: readonly PrunableKind[]): PrunePolicyShape {
  return {
    kind: "PrunePolicy",
    ...Object.fromEntries(kinds.map((kind) => [kind.plural, kind.prune.values[0]])),
    exclude: Object.fromEntries(kinds.map((kind) => [kind.plural, []])),
    source: null,
  };
}

/** The PrunePolicy kind for these prunable kinds; `Desired` is the type derived from them. */
export function prunePolicyKind<Desired extends PrunePolicyShape>(
  kinds: readonly PrunableKind[],
): Kind<Desired, "prunePolicies", undefined> {
  const schema = prunePolicySchema(kinds);
  const kind = defineKind({
    kind: "PrunePolicy",
    plural: "prunePolicies",
    schema,
    rules: [],
    key: { field: "kind", of: () => "" },
    normalize(doc, _environment, report): PrunePolicyShape {
      const written = doc as Record<string, unknown> & { exclude?: Record<string, string[] | undefined> };
      return {
        ...noPruning(kinds),
        ...Object.fromEntries(
          kinds.flatMap((k) => (written[k.plural] ? [[k.plural, written[k.plural]]] : [])),
        ),
        exclude: Object.fromEntries(kinds.map((k) => [k.plural, written.exclude?.[k.plural] ?? []])),
        source: sourceOf(report, "kind"),
      };
    },
  });
  return kind as unknown as Kind<Desired, "prunePolicies", undefined>;
}

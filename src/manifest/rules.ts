import type { DesiredDocument, DocumentKinds } from "./kinds/index.ts";
import {
  type EnvironmentRule,
  isAbsent,
  keyOf,
  type PlacedDocument as Placed,
  whereIs,
} from "./kinds/kind.ts";

export type { EnvironmentRule, EnvironmentRuleContext } from "./kinds/kind.ts";

/** A document of any listed kind, placed in its environment. */
export type PlacedDocument = Placed<DesiredDocument>;

/** Two documents of a kind with the same key: an error at the second, naming the first. */
const keysAreUnique: EnvironmentRule = ({ environment, documents }) => {
  const first = new Map<string, Placed>();
  for (const placed of documents) {
    const key = `${placed.desired.kind}\u0000${keyOf(placed.kind, placed.desired)}`;
    const earlier = first.get(key);
    if (!earlier) {
      first.set(key, placed);
      continue;
    }
    const field = placed.kind.key.field;
    const also = whereIs(earlier.report, field);
    placed.report.error(
      [field],
      field === "kind"
        ? `a second ${placed.desired.kind} for environment ${environment.name} (the first is at ${also})`
        : `${placed.desired.kind} ${placed.report.quote([field])} is also defined at ${also}`,
    );
  }
};

/** Each reference (`Kind.references`) names an object some manifest or every instance has. */
const referencesAreKnown =
  (kinds: DocumentKinds): EnvironmentRule =>
  ({ environment, documents }) => {
    const known = new Map<string, Set<string>>();
    const knownOf = (kind: string): Set<string> => {
      let names = known.get(kind);
      if (names) return names;
      names = new Set((kinds.named(kind)?.builtIn ?? []).map((name) => name.toLowerCase()));
      for (const placed of documents)
        if (placed.kind.kind === kind && !isAbsent(placed.desired))
          names.add(keyOf(placed.kind, placed.desired).toLowerCase());
      known.set(kind, names);
      return names;
    };
    for (const { kind, desired, report } of documents) {
      if (isAbsent(desired)) continue;
      for (const reference of kind.references) {
        const value = (desired as unknown as Record<string, unknown>)[reference.field];
        if (typeof value !== "string" || knownOf(reference.kind).has(value.toLowerCase())) continue;
        report.warning(
          [reference.field],
          `no manifest for environment ${environment.name} defines ${report.quote([reference.field])}; the instance must already have it`,
        );
      }
    }
  };

/** The rules of every environment: the general ones, then each kind's own. */
export function environmentRules(kinds: DocumentKinds): EnvironmentRule[] {
  return [keysAreUnique, referencesAreKnown(kinds), ...kinds.all.flatMap((kind) => kind.environmentRules)];
}

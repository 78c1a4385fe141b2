import type { SensitiveValue, SourceLocation } from "../manifest/index.ts";
import { canonicalJson } from "./compare.ts";
import {
  type Change,
  type FieldChange,
  SENSITIVE,
  SealedLive,
  SealedValue,
  type SensitiveInput,
  type Step,
} from "./model.ts";

/*
 * A value substituted from `${VAR}` is sensitive wherever it lands (Terraform's sensitive
 * propagation): a field that holds one shows its reference, never the value nor the live value it
 * replaces, and a step input that holds one is sealed (the input says `(sensitive)`, the value stays
 * in memory). Each change sees the values of its own document only, matched by where it is declared.
 *
 * Where a value landed is told by its place, never by its text: the field its manifest key becomes
 * (`firstName` → `FirstName`, `contacts[0].value` → `Contacts`). Sealing every field whose text
 * holds the value would seal `lastName: "letmein | hunter2"` when the variable is `hunter2`: a
 * preview that answers "is this the secret?" for any string a pull request writes.
 */

type Path = (string | number)[];

const at = (location: SourceLocation) => `${location.file}:${location.line}:${location.column}`;

/** The references of the values some string inside `value` holds, in the order they are listed. */
function referencesIn(value: unknown, values: readonly SensitiveValue[]): string[] {
  const found = new Set<string>();
  const visit = (item: unknown, depth: number): void => {
    if (typeof item === "string") {
      for (const sensitive of values)
        if (item.includes(sensitive.value.reveal())) found.add(sensitive.reference);
    } else if (item !== null && typeof item === "object" && depth < 16) {
      for (const inner of Object.values(item)) visit(inner, depth + 1);
    }
  };
  visit(value, 0);
  return [...found];
}

/** The manifest key a value was substituted into (`users[2].contacts[0].value` → `contacts`), lower-cased. */
function keyOf(value: SensitiveValue): string {
  const inDocument = value.path.replace(/^[^.[]*\[\d+\]\.?/, "");
  return (inDocument.split(/[.[]/, 1)[0] ?? "").toLowerCase();
}

/** The references of the values substituted into the manifest key that `name` (a field, an input key) comes from. */
function referencesAt(names: readonly (string | number)[], values: readonly SensitiveValue[]): string[] {
  const keys = new Set(
    names.filter((name): name is string => typeof name === "string").map((n) => n.toLowerCase()),
  );
  return [...new Set(values.filter((value) => keys.has(keyOf(value))).map((value) => value.reference))];
}

function sealField(field: FieldChange, values: readonly SensitiveValue[]): FieldChange {
  const references = referencesAt([field.field], values);
  if (references.length === 0) return field;
  const live = new SealedLive(canonicalJson(field.before ?? null));
  return { field: field.field, verifiable: field.verifiable, sensitive: references, live };
}

/** The input with every string that holds a value replaced by `(sensitive)`, and what was replaced. */
function sealInput(
  step: Step,
  values: readonly SensitiveValue[],
): { input: Record<string, unknown>; sealed: SensitiveInput[] } {
  const sealed: SensitiveInput[] = [];
  const visit = (item: unknown, path: Path): unknown => {
    if (typeof item === "string") {
      const references = referencesAt(path, values);
      if (references.length === 0) return item;
      sealed.push({ step: step.id, path, reference: references.join(" "), value: new SealedValue(item) });
      return SENSITIVE;
    }
    if (Array.isArray(item)) return item.map((inner, index) => visit(inner, [...path, index]));
    if (item !== null && typeof item === "object")
      return Object.fromEntries(
        Object.entries(item).map(([key, inner]) => [key, visit(inner, [...path, key])]),
      );
    return item;
  };
  const input = visit(step.input, []) as Record<string, unknown>;
  return { input, sealed };
}

/** Changes and steps with the sensitive values of their documents hidden, and the sealed inputs. */
export function sealSensitive(
  changes: readonly Change[],
  steps: readonly Step[],
  values: readonly SensitiveValue[] = [],
): { changes: Change[]; steps: Step[]; sensitive: SensitiveInput[] } {
  const byPlace = Map.groupBy(
    values.filter((value) => value.at !== undefined && value.value.reveal() !== ""),
    (value) => at(value.at as SourceLocation),
  );
  if (byPlace.size === 0) return { changes: [...changes], steps: [...steps], sensitive: [] };
  const valuesOf = new Map<string, SensitiveValue[]>();
  const sealedChanges = changes.map((change) => {
    const own = change.source ? byPlace.get(at(change.source)) : undefined;
    if (!own) return change;
    valuesOf.set(change.id, own);
    return { ...change, fields: change.fields.map((field) => sealField(field, own)) };
  });
  const sensitive: SensitiveInput[] = [];
  const sealedSteps = steps.map((step) => {
    const own = valuesOf.get(step.change);
    if (!own) return step;
    const { input, sealed } = sealInput(step, own);
    sensitive.push(...sealed);
    return sealed.length > 0 ? { ...step, input } : step;
  });
  return { changes: sealedChanges, steps: sealedSteps, sensitive };
}

/** A copy of `value` with each string that holds a sensitive value replaced by its references. */
export function withReferences(value: unknown, values: readonly SensitiveValue[]): unknown {
  if (values.length === 0) return value;
  if (typeof value === "string") {
    const references = referencesIn(value, values);
    return references.length > 0 ? references.join(" ") : value;
  }
  if (Array.isArray(value)) return value.map((item) => withReferences(item, values));
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype)
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, withReferences(item, values)]),
    );
  return value;
}

/** A step with its sealed inputs put back, for the op that sends them. */
export function unsealStep(step: Step, sensitive: readonly SensitiveInput[] | undefined): Step {
  const own = sensitive?.filter((entry) => entry.step === step.id) ?? [];
  if (own.length === 0) return step;
  const input = structuredClone(step.input);
  for (const entry of own) {
    // Apply puts every value back before a step runs (apply/sealed.ts); `(sensitive)` is never sent.
    if (!entry.value) throw new Error(`${step.id}: the value of ${entry.reference} was not read again`);
    const parent = entry.path
      .slice(0, -1)
      .reduce<unknown>((node, key) => (node as Record<string, unknown>)?.[key], input);
    const last = entry.path.at(-1);
    if (parent !== null && typeof parent === "object" && last !== undefined)
      (parent as Record<string | number, unknown>)[last] = entry.value.reveal();
  }
  return { ...step, input };
}

import type { DesiredRecordEntry, DesiredRecords, RecordFieldValue } from "../../manifest/kinds/record.ts";
import type { LiveRecord, LiveRecordField, LiveRecordLevel } from "../../state/kinds/record.ts";
import type { LiveRecordTarget } from "../../state/kinds/record-targets.ts";
import { FieldType } from "../../wire/index.ts";
import type { Change, Step } from "../model.ts";
import { type PlanProblem, RESOURCE_DEPENDENCY } from "./kind.ts";
import { didYouMean, type Problems } from "./record-values.ts";

/*
 * Cross-reference and related-records fields, by the referenced records' keys. The key of a
 * referenced level is the `key:` of the Record document that manages it, else the referring
 * document's `keys:` entry for its application (`Application/Level` before `Application`); without
 * either the plan refuses, as it does a reference that matches no record (nor one the same plan
 * creates) or more than one: a guess would link the wrong record. A reference to a record the plan
 * creates names the creating step, whose output gives the id at run time; the step waits for it.
 */

export const REFERENCE_TYPES: ReadonlySet<number> = new Set([
  FieldType.CrossReference,
  FieldType.RelatedRecords,
]);

/** A referenced record as plans show it: its application and key, or its id when egp can't read it. */
export type ShownReference = { application: string; key: string[] } | { contentId: number };

/** A reference field's value as plans show it: `Risk Register "Cloud provider outage"`. */
export interface ShownReferences {
  references: ShownReference[];
}

/** A reference field's value as its step carries it (record-steps.ts). */
export interface ReferencesWire {
  references: ({ contentId: number; levelId: number } | { step: string; levelId: number })[];
}

/** A referenced level, as keys are matched against it. */
interface Target {
  levelId: number;
  application: string;
  levelName: string;
  fields: readonly { name: string; alias: string }[];
  /** Its records with their key fields; absent when they were not read (no key known). */
  records?: readonly LiveRecord[];
  /** The `key:` of the Record document that manages it. */
  documentKey?: readonly string[];
  /** The keys of the records the plan creates in it (JSON of the key values) → the creating step. */
  creates: Map<string, string>;
}

export type Targets = ReadonlyMap<number, Target>;

/** A live value as a key compares it: text, trimmed; empty as undefined. */
export function keyPart(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.length === 1 ? keyPart(value[0]) : undefined;
  if (typeof value === "string") return value.trim() === "" ? undefined : value.trim();
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

type KeyIndex = Map<string, { record: LiveRecord; parts: (string | undefined)[] }[]>;

/** Records by their key fields' values, case folded: made once per record list and key fields. */
const keyIndexes = new WeakMap<readonly LiveRecord[], Map<string, KeyIndex>>();

/** A key's index entry: its parts lower-cased, one part as it is, several as JSON. */
function foldKey(parts: readonly string[]): string {
  return parts.length === 1
    ? (parts[0] as string).toLowerCase()
    : JSON.stringify(parts.map((part) => part.toLowerCase()));
}

function keyIndexOf(records: readonly LiveRecord[], aliases: readonly string[]): KeyIndex {
  const byAliases = keyIndexes.get(records) ?? new Map<string, KeyIndex>();
  keyIndexes.set(records, byAliases);
  const signature = aliases.join("\u0000");
  const made = byAliases.get(signature);
  if (made) return made;
  const index: KeyIndex = new Map();
  const [single] = aliases;
  for (const record of records) {
    let parts: (string | undefined)[];
    if (aliases.length === 1) {
      const part = keyPart(record.values[single as string]);
      if (part === undefined) continue;
      parts = [part];
    } else {
      parts = aliases.map((alias) => keyPart(record.values[alias]));
      // A record missing a key part matches no key: every key written has all its parts.
      if (parts.some((part) => part === undefined)) continue;
    }
    const folded = foldKey(parts as string[]);
    const list = index.get(folded);
    if (list) list.push({ record, parts });
    else index.set(folded, [{ record, parts }]);
  }
  byAliases.set(signature, index);
  return index;
}

/**
 * The records whose key fields hold `key`: exactly, and only when case is ignored. Looked up in an
 * index of the records made once, so that a document of many entries against a level of many
 * records costs their sum, not their product.
 */
export function keyMatches(
  records: readonly LiveRecord[],
  aliases: readonly string[],
  key: readonly string[],
) {
  const exact: number[] = [];
  const caseOnly: number[] = [];
  /** The records of `exact`, in its order: what an entry compares with, found without a scan. */
  const found: LiveRecord[] = [];
  const candidates =
    key.length === aliases.length ? keyIndexOf(records, aliases).get(foldKey(key)) : undefined;
  for (const candidate of candidates ?? []) {
    if (candidate.parts.every((part, at) => part === key[at])) {
      exact.push(candidate.record.id);
      found.push(candidate.record);
    } else caseOnly.push(candidate.record.id);
  }
  return { exact, caseOnly, found };
}

const aliasesOf = (fields: Target["fields"], names: readonly string[]) =>
  names.map((name) => fields.find((field) => field.name === name)?.alias ?? "");

/**
 * The levels references may point at: those the documents manage (with the records the plan
 * creates in them) and those read for references alone (state/kinds/record-targets.ts).
 */
export function targetsOf(
  documents: readonly DesiredRecords[],
  levels: readonly (LiveRecordLevel | undefined)[],
  read: readonly LiveRecordTarget[],
  createStep: (document: DesiredRecords, entry: DesiredRecordEntry) => string,
): Targets {
  const targets = new Map<number, Target>();
  for (const target of read) targets.set(target.levelId, { ...target, creates: new Map() });
  documents.forEach((document, index) => {
    const level = levels[index];
    if (!level || "missing" in level || targets.has(level.levelId)) return;
    const aliases = aliasesOf(level.fields, document.key);
    const creates = new Map<string, string>();
    if (aliases.every((alias) => alias !== ""))
      for (const entry of document.records) {
        const { exact, caseOnly } = keyMatches(level.records, aliases, entry.key);
        if (exact.length === 0 && caseOnly.length === 0)
          creates.set(JSON.stringify(entry.key), createStep(document, entry));
      }
    targets.set(level.levelId, {
      levelId: level.levelId,
      application: document.application,
      levelName: level.levelName,
      fields: level.fields,
      records: level.records,
      documentKey: document.key,
      creates,
    });
  });
  return targets;
}

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** `"Cloud provider outage"`, or `"AC", "3"` for a key of several fields. */
const label = (key: readonly string[]) => key.map((part) => JSON.stringify(part)).join(", ");

type Problem = { problem: keyof Problems<unknown>; message: string; at?: PlanProblem };

/** The key fields of `target` for `document`, or why there are none. */
function keyOf(document: DesiredRecords, target: Target, environment: string): string[] | Problem {
  if (target.documentKey) return [...target.documentKey];
  const entries = (document.keys ?? []).filter(
    (entry) =>
      same(entry.target, `${target.application}/${target.levelName}`) ||
      same(entry.target, target.application),
  );
  const entry =
    entries.find((candidate) => same(candidate.target, `${target.application}/${target.levelName}`)) ??
    entries[0];
  if (!entry)
    return {
      problem: "invalid",
      message: `its records are "${target.application}" records, whose key is not known: give "${target.application}" a Record document, or name its key fields in this document's keys: { ${target.application}: [<field>] }`,
    };
  const names = target.fields.map((field) => field.name);
  const unknown = entry.fields.find((name) => !names.includes(name));
  if (unknown !== undefined)
    return {
      problem: "invalid",
      message: `"${target.application}" has no field "${unknown}" on ${environment}${didYouMean(unknown, names)}`,
      at: { ...entry.source, message: "" },
    };
  return entry.fields;
}

type Written = string | Readonly<Record<string, string | number>>;

/** A reference by a key of several fields: each field's value text or a number. */
const isKeyMap = (
  item: Readonly<Record<string, unknown>>,
): item is Readonly<Record<string, string | number>> =>
  Object.values(item).every((part) => typeof part === "string" || typeof part === "number");

/** The references an entry writes: one or a list; `null` is none. */
function writtenReferences(value: RecordFieldValue): Written[] | undefined {
  if (value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  const out: Written[] = [];
  for (const item of list) {
    if (typeof item === "string" || typeof item === "number") out.push(String(item).trim());
    else if (typeof item === "object" && item !== null && !Array.isArray(item) && isKeyMap(item))
      out.push(item);
    else return undefined;
  }
  return out;
}

/** A written reference as the key values of `key`, in its order; undefined when its form is another key's. */
function keyValues(item: Written, key: readonly string[]): string[] | undefined {
  if (typeof item === "string") return key.length === 1 ? [item] : undefined;
  const names = Object.keys(item);
  if (names.length !== key.length || !key.every((name) => names.includes(name))) return undefined;
  const parts = key.map((name) => keyPart(item[name]));
  return parts.every((part) => part !== undefined) ? (parts as string[]) : undefined;
}

/** A live reference field's content ids (the Content API gives ids; `{ContentId}` items are taken too). */
function liveIds(value: unknown): number[] {
  if (value === null || value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).flatMap((item) => {
    const id = typeof item === "object" && item !== null ? (item as { ContentId?: unknown }).ContentId : item;
    return typeof id === "number" && Number.isInteger(id) ? [id] : [];
  });
}

interface Resolved {
  wire: ReferencesWire | null;
  same: boolean;
  before: ShownReferences;
  after: ShownReferences;
  /** The changes creating records the field references, as step dependencies. */
  dependsOn: string[];
}

interface Keyed {
  target: Target;
  key: string[];
  aliases: string[];
}

function matchOne(
  item: Written,
  keyed: readonly Keyed[],
  environment: string,
): Problem | (Keyed & { id?: number; step?: string }) {
  const shaped = keyed.flatMap((k) => {
    const parts = keyValues(item, k.key);
    return parts ? [{ ...k, parts }] : [];
  });
  const application = keyed[0]?.target.application ?? "";
  if (shaped.length === 0) {
    const forms = keyed.map((k) =>
      k.key.length === 1 ? `its ${k.key[0]}` : `{ ${k.key.map((name) => `${name}: …`).join(", ")} }`,
    );
    return {
      problem: "invalid",
      message: `a reference to "${application}" records is written as ${forms.join(" or ")}, not ${JSON.stringify(item)}`,
    };
  }
  const found: (Keyed & { id?: number; step?: string })[] = [];
  const caseOnly: number[] = [];
  for (const k of shaped) {
    const matches = keyMatches(k.target.records ?? [], k.aliases, k.parts);
    for (const id of matches.exact) found.push({ ...k, key: k.parts, id });
    caseOnly.push(...matches.caseOnly);
    const step = k.target.creates.get(JSON.stringify(k.parts));
    if (step !== undefined && matches.exact.length === 0) found.push({ ...k, key: k.parts, step });
  }
  const first = shaped[0] as (typeof shaped)[number];
  if (found.length === 1) return found[0] as Keyed & { id?: number; step?: string };
  if (found.length > 1 || caseOnly.length > 0) {
    const ids = [...found.flatMap((f) => (f.id === undefined ? [] : [f.id])), ...caseOnly].sort(
      (a, b) => a - b,
    );
    const planned = found.some((f) => f.step !== undefined) ? ", and one this plan creates" : "";
    const how = found.length > 1 ? "" : " only when case is ignored";
    return {
      problem: "ambiguous",
      message: `the reference ${label(first.parts)} matches ${ids.length === 1 ? "the" : ids.length} "${first.target.application}" record${ids.length === 1 ? "" : "s"}${how} (content id${ids.length === 1 ? "" : "s"} ${ids.join(", ")}${planned}) on ${environment}; which one is meant can't be told`,
    };
  }
  const known = shaped.flatMap((k) =>
    k.key.length === 1
      ? [
          ...(k.target.records ?? []).flatMap((record) => {
            const part = keyPart(record.values[k.aliases[0] as string]);
            return part === undefined ? [] : [part];
          }),
          ...[...k.target.creates.keys()].map((json) => (JSON.parse(json) as string[])[0] as string),
        ]
      : [],
  );
  const hint = first.parts.length === 1 ? didYouMean(first.parts[0] as string, known) : "";
  return {
    problem: "unresolved",
    message: `no "${first.target.application}" record has the key ${label(first.parts)} on ${environment}, and this plan creates none${hint}`,
  };
}

/** The live references as plans show them: each by its application and key where egp reads it. */
function shownLive(ids: readonly number[], keyed: readonly Keyed[]): ShownReferences {
  return {
    references: ids.map((id) => {
      for (const k of keyed) {
        const record = k.target.records?.find((candidate) => candidate.id === id);
        if (record)
          return {
            application: k.target.application,
            key: k.aliases.map((alias) => keyPart(record.values[alias]) ?? ""),
          };
      }
      return { contentId: id };
    }),
  };
}

export type ResolveReferences = (
  field: LiveRecordField,
  value: RecordFieldValue,
  live: unknown,
) => Resolved | Problem;

/** Resolves a reference field's value for the entries of `document`. */
export function referencesOf(
  document: DesiredRecords,
  targets: Targets,
  environment: string,
): ResolveReferences {
  return (field, value, live) => {
    const keyed: Keyed[] = [];
    for (const levelId of field.references ?? []) {
      const target = targets.get(levelId);
      if (!target)
        return {
          problem: "invalid",
          message: `"${field.name}" references level ${levelId}, which can't be read on ${environment}`,
        };
      const key = keyOf(document, target, environment);
      if (!Array.isArray(key)) return { ...key, message: `"${field.name}": ${key.message}` };
      keyed.push({ target, key, aliases: aliasesOf(target.fields, key) });
    }
    const written = writtenReferences(value);
    if (!written || keyed.length === 0)
      return { problem: "invalid", message: "a reference field takes the referenced records' keys" };
    const matched: (Keyed & { id?: number; step?: string })[] = [];
    for (const item of written) {
      const one = matchOne(item, keyed, environment);
      if ("problem" in one) return one;
      const dup = matched.some(
        (m) => m.target === one.target && (m.id !== undefined ? m.id === one.id : m.step === one.step),
      );
      if (!dup) matched.push(one);
    }
    const current = liveIds(live);
    const wanted = matched.flatMap((m) => (m.id === undefined ? [] : [m.id]));
    const creating = matched.flatMap((m) => (m.step === undefined ? [] : [m.step]));
    // By the creating change, as a targeted plan keeps what a kept change depends on.
    const dependsOn = creating.map((step) => `${RESOURCE_DEPENDENCY}${step.replace(/#create$/, "")}`);
    const sameSet =
      creating.length === 0 &&
      wanted.length === new Set(current).size &&
      wanted.every((id) => current.includes(id));
    return {
      wire:
        matched.length === 0
          ? null
          : {
              references: matched.map((m) =>
                m.id !== undefined
                  ? { contentId: m.id, levelId: m.target.levelId }
                  : { step: m.step as string, levelId: m.target.levelId },
              ),
            },
      same: sameSet,
      before: shownLive(current, keyed),
      after: { references: matched.map((m) => ({ application: m.target.application, key: m.key })) },
      dependsOn,
    };
  };
}

/**
 * Records the plan creates that reference each other, each waiting for the other's id: refused,
 * since neither can be written first. The cycle's first change, by its steps' order.
 */
export function referenceCycle(changes: readonly Change[], steps: readonly Step[]): PlanProblem | undefined {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const stepOfChange = new Map(steps.map((step) => [step.change, step.id]));
  const stepOf = (dependency: string) =>
    dependency.startsWith(RESOURCE_DEPENDENCY)
      ? stepOfChange.get(dependency.slice(RESOURCE_DEPENDENCY.length))
      : dependency;
  const state = new Map<string, "visiting" | "done">();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === "done") return undefined;
    if (state.get(id) === "visiting") return path.slice(path.indexOf(id));
    state.set(id, "visiting");
    path.push(id);
    for (const dependency of byId.get(id)?.dependsOn ?? []) {
      const next = stepOf(dependency);
      const cycle = next === undefined ? undefined : visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(id, "done");
    return undefined;
  };
  for (const step of steps) {
    const cycle = visit(step.id);
    if (!cycle) continue;
    const names = cycle.map((id) => changes.find((change) => change.id === byId.get(id)?.change));
    const first = names[0];
    const labels = names.map((change) => `Record ${change?.label ?? change?.key ?? "?"}`);
    const message =
      labels.length === 1
        ? `${labels[0]} references itself, and this plan creates it: its id does not exist before it is made; create it without the reference first`
        : `${labels.join(" and ")} reference each other, and this plan creates them all: none has an id before the others are made; create one without its reference first`;
    const at = first?.source ?? { file: "?", line: 0, column: 0 };
    return { path: "", ...at, message, ...(first ? { subject: { kind: first.kind, key: first.key } } : {}) };
  }
  return undefined;
}

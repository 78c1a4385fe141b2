import type { ErrorCode } from "../../errors/index.ts";
import { EgpError } from "../../errors/index.ts";
import type { DesiredRecordEntry, DesiredRecords } from "../../manifest/kinds/record.ts";
import type { LiveRecord, LiveRecordField, LiveRecordLevel, LiveRecords } from "../../state/kinds/record.ts";
import type { LiveRecordTarget } from "../../state/kinds/record-targets.ts";
import type { AmbiguousKey, Change, FieldChange, Step } from "../model.ts";
import {
  formatPlanProblem,
  type KindPlan,
  type KindPlanner,
  PlanError,
  type PlanInput,
  type PlanProblem,
} from "./kind.ts";
import { makeStep } from "./make-step.ts";
import { deleteLimitProblems, type PlannedDeletes, planDeletes } from "./record-delete.ts";
import {
  packagedFieldsOf,
  packagedLevelOf,
  packagedProblems,
  packageNames,
  withPackaged,
} from "./record-package-fields.ts";
import { priorValue } from "./record-prior.ts";
import {
  keyMatches,
  keyPart,
  REFERENCE_TYPES,
  type ReferencesWire,
  type ResolveReferences,
  referenceCycle,
  referencesOf,
  targetsOf,
} from "./record-refs.ts";
import { recordSteps } from "./record-steps.ts";
import {
  didYouMean,
  type Problems as ProblemsOf,
  resolve,
  SERVED,
  TYPE_NAMES,
  type ValueContext,
  type WireValue,
} from "./record-values.ts";

/*
 * Records, keyed by the values of the document's key fields. A key matching no live record plans a
 * create; exactly one, an update of the fields that differ; more than one, or one only when case is
 * ignored, refuses the whole plan, as does a value name the field's values list lacks: guessing
 * would write to the wrong record or make a duplicate. Only the fields an entry gives are managed.
 */

const KIND = recordSteps.kind;

/** A refusal of a record plan, each problem at its manifest position. */
export class RecordPlanError extends EgpError {
  readonly problems: readonly PlanProblem[];
  constructor(code: ErrorCode, problems: readonly PlanProblem[]) {
    const [first, ...more] = problems;
    const tail = more.length > 0 ? ` (and ${more.length} more)` : "";
    super(code, `${first ? formatPlanProblem(first) : "records refused"}${tail}`);
    this.name = "RecordPlanError";
    this.problems = problems;
  }
}

type Problems = ProblemsOf<PlanProblem>;

/** `"Acme Hosting"`, as plans name a record (each key value quoted). */
function label(key: readonly string[]): string {
  return key.map((part) => JSON.stringify(part)).join(", ");
}

function problemAt(
  entry: DesiredRecordEntry,
  field: string | undefined,
  message: string,
  key: string,
): PlanProblem {
  const where = (field !== undefined && entry.fields[field]) || entry.source;
  return { ...where, message, subject: { kind: KIND, key } };
}

interface Level {
  application: string;
  levelId: number;
  entitySet: string;
  fields: LiveRecordField[];
  records: LiveRecord[];
}

/** The live records whose key fields hold the entry's key: exactly, and only when case is ignored. */
function matchesOf(level: Level, keyFields: readonly LiveRecordField[], key: readonly string[]) {
  return keyMatches(
    level.records,
    keyFields.map((field) => field.alias),
    key,
  );
}

function planEntry(
  document: DesiredRecords,
  level: Level,
  fields: ReadonlyMap<string, LiveRecordField>,
  entry: DesiredRecordEntry,
  problems: Problems,
  environment: string,
  references: ResolveReferences,
  context: ValueContext = {},
): { change: Change; step: Step } | undefined {
  const key = `${document.application} ${label(entry.key)}`;
  const keyFields = document.key.map((name) => fields.get(name) as LiveRecordField);
  const { exact, caseOnly, found } = matchesOf(level, keyFields, entry.key);
  if (exact.length > 1 || (exact.length === 0 && caseOnly.length > 0)) {
    const ids = [...exact, ...caseOnly].sort((a, b) => a - b);
    const how = exact.length > 1 ? "" : " only when case is ignored";
    problems.ambiguous.push({
      ...problemAt(
        entry,
        document.key[0],
        `the key ${label(entry.key)} matches ${ids.length === 1 ? "the record" : `${ids.length} records`}${how} (content id${ids.length === 1 ? "" : "s"} ${ids.join(", ")}) on ${environment}; which one is meant can't be told`,
        key,
      ),
      duplicates: ids,
    });
    return undefined;
  }
  const live = exact.length === 1 ? found[0] : undefined;
  const changes: FieldChange[] = [];
  const writes: { fieldId: number; type: number; value: WireValue | ReferencesWire | null }[] = [];
  const dependsOn = new Set<string>();
  const prior: typeof writes = [];
  let failed = false;
  for (const [name, value] of Object.entries(entry.values)) {
    const field = fields.get(name) as LiveRecordField;
    const result = REFERENCE_TYPES.has(field.type)
      ? references(field, value, live?.values[field.alias])
      : resolve(field, value, live?.values[field.alias], { ...context, manifest: entry.source.file });
    if ("problem" in result) {
      const at = ("at" in result && result.at) || {};
      problems[result.problem].push({
        ...problemAt(entry, name, result.message, key),
        ...at,
        message: result.message,
      });
      failed = true;
      continue;
    }
    if (live && result.same) continue;
    if (!live && value === null) continue;
    const after = "after" in result ? result.after : value;
    changes.push({ field: name, ...(live ? { before: result.before } : {}), after, verifiable: true });
    writes.push({ fieldId: field.id, type: field.type, value: result.wire });
    for (const id of "dependsOn" in result ? result.dependsOn : []) dependsOn.add(id);
    if (live)
      prior.push({ fieldId: field.id, type: field.type, value: priorValue(field, live.values[field.alias]) });
  }
  if (failed || (live && changes.length === 0)) return undefined;
  const change: Change = {
    id: `${KIND}/${key}`,
    kind: KIND,
    key,
    label: key,
    action: live ? "update" : "create",
    fields: changes,
    notes: [],
    destructive: false,
    // A plan file keeps a change's file, line and column only: a path here would differ on apply.
    source: { file: entry.source.file, line: entry.source.line, column: entry.source.column },
  };
  const target = {
    application: document.application,
    key: entry.key,
    levelId: level.levelId,
    fields: writes,
    entitySet: level.entitySet,
    keyAliases: keyFields.map((field) => field.alias),
  };
  const step = live
    ? makeStep(change, "record.update", environment, { ...target, contentId: live.id, prior }, [...dependsOn])
    : makeStep(change, "record.create", environment, target, [...dependsOn]);
  return { change, step };
}

/** The fields a document names that the level lacks or that this kind does not write yet. */
function fieldProblems(
  document: DesiredRecords,
  fields: ReadonlyMap<string, LiveRecordField>,
  environment: string,
  /** What else was looked at, for the refusal's words: the packages of the plan that add fields. */
  nor = "",
) {
  const problems: PlanProblem[] = [];
  const names = [...fields.keys()];
  const check = (name: string, where: PlanProblem) => {
    const field = fields.get(name);
    if (!field)
      problems.push({
        ...where,
        message: `"${document.application}" has no field "${name}" on ${environment}${nor}${didYouMean(name, names)}`,
      });
    else if (!SERVED.has(field.type) && !REFERENCE_TYPES.has(field.type))
      problems.push({
        ...where,
        message: `"${name}" is a ${TYPE_NAMES[field.type] ?? `type ${field.type}`} field, which Record documents do not write yet`,
      });
  };
  const seen = new Set<string>();
  for (const name of document.key) check(name, { ...document.source, path: "key", message: "" });
  for (const entry of document.records)
    for (const name of Object.keys(entry.values)) {
      if (seen.has(name) || document.key.includes(name)) continue;
      seen.add(name);
      check(name, { ...(entry.fields[name] ?? entry.source), message: "" });
    }
  return problems;
}

function documentsOf(desired: PlanInput["desired"]): readonly DesiredRecords[] {
  const list = (desired as unknown as Readonly<Record<string, unknown>>).records;
  return Array.isArray(list) ? (list as readonly DesiredRecords[]) : [];
}

function levelsOf(live: PlanInput["live"]): readonly LiveRecordLevel[] {
  const list = (live as unknown as Readonly<Record<string, unknown>>).records;
  return Array.isArray(list) ? (list as readonly LiveRecordLevel[]) : [];
}

/** The level read for `document`: the read follows the documents' order, and another's is not its. */
function matchingRead(read: LiveRecordLevel | undefined, document: DesiredRecords) {
  return read && read.application === document.application && read.level === document.level
    ? read
    : undefined;
}

function recordTargetsOf(live: PlanInput["live"]): readonly LiveRecordTarget[] {
  const list = (live as unknown as Readonly<Record<string, unknown>>).recordTargets;
  return Array.isArray(list) ? (list as readonly LiveRecordTarget[]) : [];
}

/** What the live state holds beyond the levels that values resolve against: users and groups, files, sub-forms. */
function valueContextOf(live: PlanInput["live"]): ValueContext {
  const { principals, files, subforms } = live as unknown as Partial<LiveRecords>;
  return {
    ...(principals ? { principals } : {}),
    ...(files ? { files } : {}),
    ...(subforms ? { subforms } : {}),
  };
}

/**
 * Throws the first kind of refusal found: fields the level lacks, then ambiguous keys (unless a
 * read-only view reports them), then unresolved values.
 */
function refuse(problems: Problems, options: PlanInput["options"]): void {
  if (problems.invalid.length > 0) throw PlanError.refused(problems.invalid);
  if (problems.ambiguous.length > 0 && options.ambiguousKeys !== "report")
    throw new RecordPlanError("EGP_RECORD_KEY_AMBIGUOUS", problems.ambiguous);
  if (problems.unresolved.length > 0)
    throw new RecordPlanError("EGP_RECORD_REF_UNRESOLVED", problems.unresolved);
}

function plan({ desired, live, options, planned: after }: PlanInput): KindPlan {
  const result: KindPlan = { changes: [], steps: [], unmanaged: [] };
  const tallies: PlannedDeletes["tally"][] = [];
  const environment = desired.environment.name;
  const problems: Problems = { invalid: [], ambiguous: [], unresolved: [] };
  const levels = levelsOf(live);
  const documents = documentsOf(desired);
  const targets = targetsOf(
    documents,
    documents.map((document, index) => matchingRead(levels[index], document)),
    recordTargetsOf(live),
    (document, entry) => `${KIND}/${document.application} ${label(entry.key)}#create`,
  );
  const context = valueContextOf(live);
  documents.forEach((document, index) => {
    const read = matchingRead(levels[index], document);
    const added = read && "missing" in read ? packagedLevelOf(after?.packageDeliveries, document) : undefined;
    const level = added && "level" in added ? added.level : read;
    if (!level || "missing" in level) {
      const what =
        level?.missing === "level"
          ? `no level "${document.level}" in "${document.application}"`
          : `no application "${document.application}"`;
      problems.invalid.push({
        ...document.source,
        path: "application",
        message: `${what} on ${environment}${added && "problem" in added ? `: ${added.problem}` : ""}`,
      });
      return;
    }
    const fields = new Map(level.fields.map((field) => [field.name, field]));
    const packaged =
      added && "packaged" in added
        ? added.packaged
        : packagedFieldsOf(after?.packageDeliveries, document.application, level.levelName, fields);
    for (const field of packaged?.fields ?? []) fields.set(field.name, field);
    const nor = packaged ? `, nor does package ${packageNames(packaged)} of this plan add one` : "";
    const invalid = [
      ...fieldProblems(document, fields, environment, nor),
      ...(packaged ? packagedProblems(document, packaged, environment) : []),
    ];
    problems.invalid.push(...invalid);
    if (invalid.length > 0) return;
    for (const entry of document.records) {
      if (entry.ensure === "absent") continue;
      const references = referencesOf(document, targets, environment);
      const made = planEntry(document, level, fields, entry, problems, environment, references, context);
      if (!made) continue;
      const planned = packaged ? withPackaged(made, packaged) : made;
      result.changes.push(planned.change);
      result.steps.push(planned.step);
    }
    const keyFields = document.key.map((name) => fields.get(name) as LiveRecordField);
    const deletes = planDeletes(
      {
        document,
        level,
        environment,
        keyOf: (record) => keyFields.map((field) => keyPart(record.values[field.alias])),
        matches: (key) => matchesOf(level, keyFields, key),
      },
      problems.ambiguous,
    );
    result.changes.push(...deletes.changes);
    result.steps.push(...deletes.steps);
    tallies.push(deletes.tally);
  });
  const cycle = referenceCycle(result.changes, result.steps);
  if (cycle) problems.invalid.push(cycle);
  refuse(problems, options);
  const over = deleteLimitProblems(tallies, environment, options.allowDelete === true);
  if (over.length > 0) throw new RecordPlanError("EGP_RECORD_DELETE_LIMIT", over);
  return problems.ambiguous.length > 0
    ? { ...result, ambiguous: problems.ambiguous.map(ambiguousKey) }
    : result;
}

/** A refused key as a view reports it. */
function ambiguousKey(problem: PlanProblem): AmbiguousKey {
  const { file, line, column } = problem;
  return {
    kind: KIND,
    key: problem.subject?.key ?? "",
    message: problem.message,
    ids: [...(problem.duplicates ?? [])],
    source: { file, line, column },
  };
}

/** Records: after the kinds whose steps may make the fields and values they name. */
export const recordPlanner: KindPlanner = {
  kind: KIND,
  order: 40,
  unverifiable: [],
  plan,
};

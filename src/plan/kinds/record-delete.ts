import type { DesiredRecords } from "../../manifest/kinds/record.ts";
import type { LiveRecord } from "../../state/kinds/record.ts";
import type { Change, Step } from "../model.ts";
import type { PlanProblem } from "./kind.ts";
import { makeStep } from "./make-step.ts";
import { recordSteps } from "./record-steps.ts";

/*
 * Record deletes: the record an `ensure: absent` entry's key matches, and, under `prune: delete`,
 * each record of the level that no entry names. A key matching several records refuses as for
 * updates; one matching none asks for nothing. A deleted record can't come back (a new one gets a
 * new id, and its history, workflow and attachments are gone), so a plan deleting many is refused
 * unless --allow-delete says so.
 */

const KIND = recordSteps.kind;

/** More deletes than this in one plan, or more than this share of a level's records, need --allow-delete. */
export const DELETE_LIMIT = { records: 10, share: 0.05 } as const;

export const GONE_FOR_GOOD =
  "a deleted record can't come back: a new one gets a new id, and its history, workflow and attachments are gone";

export interface DeleteInput {
  document: DesiredRecords;
  level: { levelId: number; records: readonly LiveRecord[] };
  environment: string;
  /** A live record's key values as keys compare (trimmed text; undefined when empty), in `key` order. */
  keyOf(record: LiveRecord): (string | undefined)[];
  /** The live records an entry's key matches: exactly, and only when case is ignored. */
  matches(key: readonly string[]): { exact: number[]; caseOnly: number[]; found: readonly LiveRecord[] };
}

export interface PlannedDeletes {
  changes: Change[];
  steps: Step[];
  /** The level's records as read, and how many the plan deletes: what the limit is checked against. */
  tally: { document: DesiredRecords; records: number; deletes: number };
}

interface Doomed {
  record: LiveRecord;
  parts: (string | undefined)[];
  reason: "absent" | "prune";
  source: Change["source"];
}

/** `"Acme Hosting"`, as plans name a record (each key value quoted). */
const recordLabel = (key: readonly string[]) => key.map((part) => JSON.stringify(part)).join(", ");

const lower = (parts: readonly (string | undefined)[]) => JSON.stringify(parts.map((p) => p?.toLowerCase()));

/** The records `ensure: absent` entries name; a key matching several refuses (pushed to `ambiguous`). */
function absentOnes(input: DeleteInput, ambiguous: PlanProblem[]): Doomed[] {
  const { document, environment } = input;
  const doomed: Doomed[] = [];
  for (const entry of document.records.filter((e) => e.ensure === "absent")) {
    const { exact, caseOnly, found } = input.matches(entry.key);
    if (exact.length > 1 || (exact.length === 0 && caseOnly.length > 0)) {
      const ids = [...exact, ...caseOnly].sort((a, b) => a - b);
      const how = exact.length > 1 ? "" : " only when case is ignored";
      ambiguous.push({
        ...entry.source,
        message: `the key ${recordLabel(entry.key)} matches ${ids.length === 1 ? "the record" : `${ids.length} records`}${how} (content id${ids.length === 1 ? "" : "s"} ${ids.join(", ")}) on ${environment}; which one is meant can't be told`,
        subject: { kind: KIND, key: `${document.application} ${recordLabel(entry.key)}` },
        duplicates: ids,
      });
      continue;
    }
    const record = exact.length === 1 ? found[0] : undefined;
    const { file, line, column } = entry.source;
    if (record) doomed.push({ record, parts: entry.key, reason: "absent", source: { file, line, column } });
  }
  return doomed;
}

/** Under `prune: delete`, the records whose key no entry has (ignoring case: such a one is refused, never pruned). */
function unnamedOnes(input: DeleteInput): Doomed[] {
  if (input.document.prune !== "delete") return [];
  const named = new Set(input.document.records.map((entry) => lower(entry.key)));
  return input.level.records
    .map((record) => ({ record, parts: input.keyOf(record) }))
    .filter(({ parts }) => !named.has(lower(parts)))
    .map(({ record, parts }) => ({ record, parts, reason: "prune" as const, source: input.document.source }));
}

/** `Third Parties "Old Vendor"`; with the content id when the key alone does not tell the record. */
function keysOf(application: string, doomed: readonly Doomed[]): string[] {
  const labels = doomed.map(({ parts }) => `${application} ${recordLabel(parts.map((p) => p ?? ""))}`);
  return labels.map((label, at) => {
    const { parts, record } = doomed[at] as Doomed;
    const alone = parts.every((p) => p !== undefined) && labels.indexOf(label) === labels.lastIndexOf(label);
    return alone ? label : `${label} (content id ${record.id})`;
  });
}

export function planDeletes(input: DeleteInput, ambiguous: PlanProblem[]): PlannedDeletes {
  const { document, level, environment } = input;
  const doomed = [...absentOnes(input, ambiguous), ...unnamedOnes(input)];
  const keys = keysOf(document.application, doomed);
  const changes: Change[] = [];
  const steps: Step[] = [];
  doomed.forEach(({ record, parts, reason, source }, at) => {
    const key = keys[at] as string;
    const change: Change = {
      id: `${KIND}/${key}`,
      kind: KIND,
      key,
      label: key,
      action: "delete",
      fields: [],
      notes: [
        reason === "absent"
          ? "ensure: absent in the manifests"
          : "no entry names it, and the document says prune: delete",
        GONE_FOR_GOOD,
      ],
      destructive: true,
      ...(source ? { source } : {}),
    };
    changes.push(change);
    steps.push(
      makeStep(change, "record.delete", environment, {
        application: document.application,
        key: parts.map((p) => p ?? ""),
        levelId: level.levelId,
        contentId: record.id,
        reason,
      }),
    );
  });
  return { changes, steps, tally: { document, records: level.records.length, deletes: doomed.length } };
}

/**
 * The levels whose deletes pass the limit, one problem each at its document; none with
 * --allow-delete. The plan's total counts too: many small levels add up.
 */
export function deleteLimitProblems(
  tallies: readonly PlannedDeletes["tally"][],
  environment: string,
  allowDelete: boolean,
): PlanProblem[] {
  if (allowDelete) return [];
  const total = tallies.reduce((sum, tally) => sum + tally.deletes, 0);
  const over = (tally: PlannedDeletes["tally"]) =>
    tally.deletes > 0 && (total > DELETE_LIMIT.records || tally.deletes > tally.records * DELETE_LIMIT.share);
  return tallies.filter(over).map(({ document, records, deletes }) => ({
    ...document.source,
    path: "application",
    message: `the plan deletes ${deletes} of the ${records} records of "${document.application}" on ${environment}${total > deletes ? ` (${total} records in all)` : ""}; more than ${DELETE_LIMIT.records} records, or more than ${DELETE_LIMIT.share * 100}% of an application's, are deleted only with --allow-delete (${GONE_FOR_GOOD})`,
  }));
}

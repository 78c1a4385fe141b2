import type { PlatformClient } from "../../client/client.ts";
import { NotFoundError, ResponseShapeError } from "../../client/errors.ts";
import { EgpError } from "../../errors/index.ts";
import type { DesiredState } from "../../manifest/index.ts";
import type { DesiredRecords } from "../../manifest/kinds/record.ts";
import { hash } from "../digest.ts";
import { liveKind, type ReadContext } from "./kind.ts";
import { type RecordFiles, readRecordFiles } from "./record-attachments.ts";
import { digestScope, type RecordDigestScope, recordsDigest } from "./record-digest.ts";
import { type RecordPrincipals, readPrincipals, writesPrincipals } from "./record-principals.ts";
import { type LiveSubform, readSubforms } from "./record-subforms.ts";
import { type LiveRecordTarget, readTargets } from "./record-targets.ts";

/*
 * Records: for each application level a `Record` document manages, its field definitions (names,
 * aliases, types, values) and its records' managed fields, read once through the Content API in
 * pages, never one record at a time. A Content API that answers 404 or something that is not its
 * JSON refuses the kind for the environment: read as "no records", it would plan a create of each.
 */

const PART = "records";

/** A field of the level, as the planner resolves names against it. */
export interface LiveRecordField {
  id: number;
  name: string;
  alias: string;
  type: number;
  /** Values-list values, by id and name; empty for other types. */
  values: { id: number; name: string }[];
  /** Cross-reference and related-records fields: the levels whose records they reference. */
  references?: number[];
  /** A sub-form field's sub-form (its module id). */
  subform?: number;
}

/** One live record: its content id and its managed fields' values, by field alias. */
export interface LiveRecord {
  id: number;
  values: Record<string, unknown>;
}

/** One managed application level, as read; `missing` when the instance has no such application or level. */
export type LiveRecordLevel =
  | ReadRecordLevel
  | { application: string; level?: string; missing: "application" | "level" };

/** A level that was found and read. */
export interface ReadRecordLevel {
  application: string;
  level?: string;
  levelId: number;
  levelName: string;
  /** The Content API's entity set of the level (its alias). */
  entitySet: string;
  fields: LiveRecordField[];
  records: LiveRecord[];
  /** What of the level a saved plan's digest covers (record-digest.ts); absent: all of it. */
  scope?: RecordDigestScope;
}

export interface LiveRecords {
  records: LiveRecordLevel[];
  /** The referenced levels no document manages, with their records' key fields (record-targets.ts). */
  recordTargets?: LiveRecordTarget[];
  /** The instance's users and groups, read when a document writes a users/groups field. */
  principals?: RecordPrincipals;
  /** The files and live attachments of attachment fields, read when a document writes one. */
  files?: RecordFiles;
  /** The sub-forms whose rows documents write, by module id. */
  subforms?: Record<string, LiveSubform>;
}

/** The Record documents of a desired state (a kind's documents are under its plural). */
export function recordDocuments(desired: DesiredState): readonly DesiredRecords[] {
  const list = (desired as unknown as Readonly<Record<string, unknown>>)[PART];
  return Array.isArray(list) ? (list as readonly DesiredRecords[]) : [];
}

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

export async function fieldsOf(client: PlatformClient, levelId: number): Promise<LiveRecordField[]> {
  const definitions = await client.metadata.fieldDefinitions(levelId);
  return definitions
    .filter((field) => field.IsActive)
    .map((field) => ({
      id: field.Id,
      name: field.Name,
      alias: field.Alias,
      type: field.Type,
      values: (field.ValuesListValues ?? []).map((value) => ({ id: value.Id, name: value.Name })),
      ...(field.ReferencedLevelIds?.length ? { references: field.ReferencedLevelIds } : {}),
      ...(field.RelatedSubformId ? { subform: field.RelatedSubformId } : {}),
    }));
}

function unavailable(environment: string, document: DesiredRecords, cause: unknown): EgpError {
  const why =
    cause instanceof NotFoundError
      ? "answered 404"
      : "answered with something that is not its JSON (an HTML page?)";
  return new EgpError(
    "EGP_RECORD_READ_UNAVAILABLE",
    `${document.source.file}:${document.source.line}:${document.source.column}: the records of "${document.application}" on ${environment} can't be read: the Content API ${why}; they are not taken as none`,
    { cause },
  );
}

/** The managed fields' aliases: the key fields and every field an entry gives, that the level has. */
function selectOf(document: DesiredRecords, fields: readonly LiveRecordField[]): string[] {
  const named = new Set([...document.key, ...document.records.flatMap((entry) => Object.keys(entry.values))]);
  return fields.filter((field) => [...named].some((name) => name === field.name)).map((field) => field.alias);
}

async function readLevel(client: PlatformClient, document: DesiredRecords, environment: string) {
  const applications = await client.metadata.applications();
  const application = applications.find((app) => same(app.Name, document.application));
  if (!application)
    return { application: document.application, level: document.level, missing: "application" as const };
  const levels = await client.metadata.levelsByModule(application.Id);
  const level = document.level
    ? levels.find((candidate) => same(candidate.Name, document.level as string))
    : [...levels].sort((a, b) => a.Id - b.Id)[0];
  if (!level) return { application: document.application, level: document.level, missing: "level" as const };
  const fields = await fieldsOf(client, level.Id);
  const idField = `${level.Alias}_Id`;
  let entities: Record<string, unknown>[];
  try {
    entities = await client.contentApi.allRecords(level.Alias, {
      select: [idField, ...selectOf(document, fields)],
    });
  } catch (error) {
    if (error instanceof NotFoundError || error instanceof ResponseShapeError)
      throw unavailable(environment, document, error);
    throw error;
  }
  // The entity is kept as it was parsed, its id field with it (values are read by alias): a copy of
  // each of 50,000 records was most of what the read gave the collector to do.
  const records = entities.map((entity) => ({ id: Number(entity[idField]), values: entity }));
  return {
    application: document.application,
    level: document.level,
    levelId: level.Id,
    levelName: level.Name,
    entitySet: level.Alias,
    fields,
    records: records.sort((a, b) => a.id - b.id),
    scope: digestScope(document, fields),
  };
}

async function read(context: ReadContext): Promise<LiveRecords> {
  const environment = context.desired.environment.name;
  const documents = recordDocuments(context.desired);
  const levels: LiveRecordLevel[] = [];
  for (const document of documents) levels.push(await readLevel(context.client, document, environment));
  const read = levels.map((level) => ("fields" in level ? level : undefined));
  const subforms = await readSubforms(context.client, documents, read, fieldsOf);
  const fields = [
    ...levels.map((level) => ("fields" in level ? level.fields : [])),
    ...Object.values(subforms ?? {}).map((subform) => subform.fields),
  ];
  const targets = await readTargets(context.client, documents, levels, environment);
  const [principals, files] = await Promise.all([
    writesPrincipals(documents, fields, subforms !== undefined) ? readPrincipals(context.client) : undefined,
    readRecordFiles(context.client, context.options.dir, documents, read),
  ]);
  return {
    records: levels,
    ...(targets.length > 0 ? { recordTargets: targets } : {}),
    ...(principals ? { principals } : {}),
    ...(files ? { files } : {}),
    ...(subforms ? { subforms } : {}),
  };
}

/**
 * Records: read only for the applications `Record` documents manage, so a repository without them
 * reads nothing. Not a part "not read" either: records no document names are never counted or pruned.
 */
export const recordLive = liveKind({
  part: PART,
  label: "records",
  read,
  // The referenced levels' keys are digested whole: a reference resolves against every record's key.
  digest: (state) =>
    state.recordTargets
      ? hash([recordsDigest(state.records), state.recordTargets])
      : recordsDigest(state.records),
});

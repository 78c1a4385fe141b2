import type { PlatformClient } from "../../client/client.ts";
import { NotFoundError, ResponseShapeError } from "../../client/errors.ts";
import { EgpError } from "../../errors/index.ts";
import type { DesiredRecords } from "../../manifest/kinds/record.ts";

/*
 * The levels whose records a Record document's cross-reference and related-records fields point at
 * (the field definitions' referenced levels), when no document of the environment manages them: each
 * read once, through the Content API in pages with `$select` of its key fields only, never one
 * record at a time. A level a document manages is not read again: that read has its key fields.
 * Which fields are a level's key is the `keys:` maps' to say; the planner decides which applies.
 */

/** A referenced level no document manages: its names, its fields, its records' key fields. */
export interface LiveRecordTarget {
  levelId: number;
  /** The application (module) the level belongs to, as the instance names it. */
  application: string;
  levelName: string;
  entitySet: string;
  /** The level's active fields, by name and alias: what a `keys:` entry's names resolve against. */
  fields: { name: string; alias: string }[];
  /** Its records: content id and key fields by alias; absent when no `keys:` entry names its key. */
  records?: { id: number; values: Record<string, unknown> }[];
}

/** A managed level as the record read has it: its id and its fields. */
interface ReadLevel {
  levelId: number;
  fields: readonly { name: string; references?: readonly number[] }[];
}

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** Whether a `keys:` entry names the level: `Application`, or `Application/Level`. */
export function keysEntryNames(target: string, application: string, level: string): boolean {
  return same(target, application) || same(target, `${application}/${level}`);
}

/** The referenced levels no document manages, each with the documents that reference it. */
function wantedLevels(
  documents: readonly DesiredRecords[],
  levels: readonly (ReadLevel | object)[],
): Map<number, DesiredRecords[]> {
  const managed = new Set(levels.flatMap((level) => ("levelId" in level ? [level.levelId] : [])));
  const wanted = new Map<number, DesiredRecords[]>();
  documents.forEach((document, index) => {
    const level = levels[index];
    if (!level || !("levelId" in level)) return;
    const named = new Set(document.records.flatMap((entry) => Object.keys(entry.values)));
    for (const field of level.fields) {
      if (!named.has(field.name)) continue;
      for (const id of field.references ?? []) {
        if (managed.has(id)) continue;
        const referring = wanted.get(id) ?? [];
        if (!referring.includes(document)) referring.push(document);
        wanted.set(id, referring);
      }
    }
  });
  return wanted;
}

function unavailable(environment: string, application: string, document: DesiredRecords, cause: unknown) {
  const why =
    cause instanceof NotFoundError
      ? "answered 404"
      : "answered with something that is not its JSON (an HTML page?)";
  const at = `${document.source.file}:${document.source.line}:${document.source.column}`;
  return new EgpError(
    "EGP_RECORD_READ_UNAVAILABLE",
    `${at}: the records of "${application}", which "${document.application}" references, on ${environment} can't be read: the Content API ${why}; they are not taken as none`,
    { cause },
  );
}

async function readTarget(
  client: PlatformClient,
  levelId: number,
  referring: readonly DesiredRecords[],
  environment: string,
): Promise<LiveRecordTarget | undefined> {
  let level: Awaited<ReturnType<PlatformClient["metadata"]["level"]>>;
  try {
    level = await client.metadata.level(levelId);
  } catch (error) {
    // A level the field points at that the instance no longer serves: the planner names it.
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
  const fields = (await client.metadata.fieldDefinitions(levelId))
    .filter((field) => field.IsActive)
    .map((field) => ({ name: field.Name, alias: field.Alias }));
  const target = {
    levelId,
    application: level.ModuleName,
    levelName: level.Name,
    entitySet: level.Alias,
    fields,
  };
  const keyNames = new Set(
    referring.flatMap((document) =>
      (document.keys ?? [])
        .filter((entry) => keysEntryNames(entry.target, level.ModuleName, level.Name))
        .flatMap((entry) => entry.fields),
    ),
  );
  const aliases = fields.filter((field) => keyNames.has(field.name)).map((field) => field.alias);
  if (aliases.length === 0) return target;
  const idField = `${level.Alias}_Id`;
  let entities: Record<string, unknown>[];
  try {
    entities = await client.contentApi.allRecords(level.Alias, { select: [idField, ...aliases] });
  } catch (error) {
    if (error instanceof NotFoundError || error instanceof ResponseShapeError)
      throw unavailable(environment, level.ModuleName, referring[0] as DesiredRecords, error);
    throw error;
  }
  const records = entities
    .map((entity) => {
      const { [idField]: id, ...values } = entity;
      return { id: Number(id), values };
    })
    .sort((a, b) => a.id - b.id);
  return { ...target, records };
}

/** The referenced levels that no document manages, in level id order. */
export async function readTargets(
  client: PlatformClient,
  documents: readonly DesiredRecords[],
  levels: readonly (ReadLevel | object)[],
  environment: string,
): Promise<LiveRecordTarget[]> {
  const wanted = wantedLevels(documents, levels);
  const targets: LiveRecordTarget[] = [];
  for (const [levelId, referring] of [...wanted].sort(([a], [b]) => a - b)) {
    const target = await readTarget(client, levelId, referring, environment);
    if (target) targets.push(target);
  }
  return targets;
}

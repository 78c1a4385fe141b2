import { readFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import type { PlatformClient } from "../client/client.ts";
import { NotFoundError, ResponseShapeError } from "../client/errors.ts";
import { EgpError } from "../errors/index.ts";
import type { ExportedFile } from "../export/index.ts";
import { mergeExported } from "../export/merge.ts";
import {
  type ExportField,
  expressible,
  isReference,
  isUsersGroups,
  KEY_TYPES,
  keyPart,
  type ReferenceTarget,
  recordDocument,
  typeWord,
} from "../export/records.ts";
import { manifestFile } from "../export/yaml.ts";
import { environmentOf, type ManifestIssue, readRepository, selectManifests } from "../manifest/index.ts";
import type { DesiredRecords } from "../manifest/kinds/record.ts";
import { didYouMean } from "../plan/kinds/record-values.ts";
import { recordDocuments } from "../state/kinds/record.ts";
import type { OpenEnvironment } from "./plan-environment.ts";

/*
 * `egp export --kind Record`: one application level's records as a Record document (docs/records.md,
 * "Export"), read through the Content API in pages, with the users, groups and referenced records
 * its values name read once each. The file is merged with the one an earlier export left, as the
 * other kinds' files are. Reads only.
 */

export interface RecordExportOptions {
  dir: string;
  env: string;
  open: OpenEnvironment;
  out: string;
  application: string;
  level?: string;
  /** The key fields, by name; the level's key field when the instance says which. */
  key?: readonly string[];
  /** `Risk Register=Risk Name`: a referenced application's key field, where nothing else says it. */
  refKeys?: readonly string[];
  manifests?: readonly string[];
  force?: boolean;
}

export interface RecordExportResult {
  file: ExportedFile;
  /** The application as the instance names it. */
  application: string;
  /** How many records the document holds. */
  records: number;
  /** Fields of types no Record document expresses, each `Name (type)`. */
  leftOutFields: string[];
  warnings: string[];
  issues: ManifestIssue[];
}

interface LevelField extends ExportField {
  id: number;
  isKey: boolean;
  referencedLevelIds: number[];
}

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

function usage(message: string): EgpError {
  return new EgpError("EGP_USAGE", message);
}

async function fieldsOf(client: PlatformClient, levelId: number): Promise<LevelField[]> {
  const definitions = await client.metadata.fieldDefinitions(levelId);
  return definitions
    .filter((field) => field.IsActive)
    .sort((a, b) => a.Id - b.Id)
    .map((field) => ({
      id: field.Id,
      name: field.Name,
      alias: field.Alias,
      type: field.Type,
      // Not in the interface description; real instances flag a level's key field so.
      isKey: (field as { IsKey?: unknown }).IsKey === true,
      referencedLevelIds: field.ReferencedLevelIds ?? [],
      values: (field.ValuesListValues ?? []).map((value) => ({ id: value.Id, name: value.Name })),
    }));
}

/** The application and level by name (the level: the application's first when not named). */
async function levelOf(client: PlatformClient, env: string, application: string, level?: string) {
  const applications = await client.metadata.applications();
  const app = applications.find((candidate) => same(candidate.Name, application));
  if (!app)
    throw usage(
      `--application: no application "${application}" on ${env}${didYouMean(
        application,
        applications.map((a) => a.Name),
      )}`,
    );
  const levels = [...(await client.metadata.levelsByModule(app.Id))].sort((a, b) => a.Id - b.Id);
  const found = level ? levels.find((candidate) => same(candidate.Name, level)) : levels[0];
  if (!found)
    throw usage(
      `--level: no level "${level ?? ""}" in "${app.Name}" on ${env}${didYouMean(
        level ?? "",
        levels.map((l) => l.Name),
      )}`,
    );
  return { app, level: found, first: levels[0]?.Id === found.Id };
}

/** The key fields: as given, else the level's key field as the instance flags it. */
function keyOf(fields: readonly LevelField[], given: readonly string[] | undefined, where: string): string[] {
  if (!given || given.length === 0) {
    const flagged = fields.filter((field) => field.isKey);
    if (flagged.length === 0)
      throw usage(
        `--key: the instance does not say which field of ${where} is its key; name it with --key FIELD`,
      );
    return flagged.map((field) => field.name);
  }
  return given.map((name) => {
    const field = fields.find((candidate) => candidate.name === name);
    if (!field)
      throw usage(
        `--key: ${where} has no field "${name}"${didYouMean(
          name,
          fields.map((f) => f.name),
        )}`,
      );
    if (!KEY_TYPES.has(field.type))
      throw usage(
        `--key: "${name}" is a ${typeWord(field.type)} field; a key is a text, numeric, values-list or IP address field`,
      );
    return field.name;
  });
}

function unavailable(env: string, application: string, cause: unknown): EgpError {
  const why =
    cause instanceof NotFoundError
      ? "answered 404"
      : "answered with something that is not its JSON (an HTML page?)";
  return new EgpError(
    "EGP_RECORD_READ_UNAVAILABLE",
    `export: the records of "${application}" on ${env} can't be read: the Content API ${why}`,
    { cause },
  );
}

/** Every record of the level (content id and the selected fields), read in pages. */
async function recordsOf(
  client: PlatformClient,
  env: string,
  application: string,
  entitySet: string,
  aliases: readonly string[],
) {
  const idField = `${entitySet}_Id`;
  try {
    const entities = await client.contentApi.allRecords(entitySet, { select: [idField, ...aliases] });
    return entities.map((entity) => {
      const { [idField]: id, ...values } = entity;
      return { id: Number(id), values };
    });
  } catch (error) {
    if (error instanceof NotFoundError || error instanceof ResponseShapeError)
      throw unavailable(env, application, error);
    throw error;
  }
}

/** `Risk Register=Risk Name` flags as a map from the target's name (lower case) to its key fields. */
function refKeysOf(flags: readonly string[]): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const flag of flags) {
    const at = flag.indexOf("=");
    const name = flag.slice(0, at).trim();
    const field = flag.slice(at + 1).trim();
    if (at < 0 || name === "" || field === "")
      throw usage(`--ref-key: "${flag}" is not APPLICATION=FIELD (e.g. "Risk Register=Risk Name")`);
    map.set(name.toLowerCase(), [...(map.get(name.toLowerCase()) ?? []), field]);
  }
  return map;
}

interface TargetContext {
  client: PlatformClient;
  env: string;
  /** The repository's Record documents for this environment. */
  documents: readonly DesiredRecords[];
  refKeys: ReadonlyMap<string, string[]>;
  /** The exported document itself: a reference into its own level uses its key. */
  self: { levelId: number; key: readonly string[] };
}

/** The name a `keys:` map gives a target: its application, and the level when not the first. */
async function targetOf(context: TargetContext, levelId: number) {
  const level = await context.client.metadata.level(levelId);
  const levels = [...(await context.client.metadata.levelsByModule(level.ModuleId))].sort(
    (a, b) => a.Id - b.Id,
  );
  const first = levels[0]?.Id === level.Id;
  return { level, first, entry: first ? level.ModuleName : `${level.ModuleName}/${level.Name}` };
}

/** The target's key: the export's own, the repository's Record document's, a --ref-key, or the instance's flag. */
async function targetKey(
  context: TargetContext,
  field: LevelField,
  levelId: number,
): Promise<{ key: string[]; keysEntry?: string; entitySet: string; fields: LevelField[] }> {
  const { level, first, entry } = await targetOf(context, levelId);
  const fields = await fieldsOf(context.client, levelId);
  if (levelId === context.self.levelId) return { key: [...context.self.key], entitySet: level.Alias, fields };
  const document = context.documents.find(
    (doc) =>
      same(doc.application, level.ModuleName) &&
      (doc.level === undefined ? first : same(doc.level, level.Name)),
  );
  if (document) return { key: [...document.key], entitySet: level.Alias, fields };
  const given = context.refKeys.get(entry.toLowerCase());
  if (given)
    return { key: keyOf(fields, given, `"${entry}"`), keysEntry: entry, entitySet: level.Alias, fields };
  const flagged = fields.filter((candidate) => candidate.isKey).map((candidate) => candidate.name);
  if (flagged.length > 0) return { key: flagged, keysEntry: entry, entitySet: level.Alias, fields };
  throw usage(
    `--ref-key: "${field.name}" references "${entry}", whose key field the instance does not say and no Record document gives; name it with --ref-key "${entry}=FIELD"`,
  );
}

/** Each referenced record's key, by content id; refused where two referenced records share a key. */
async function targetKeys(
  context: TargetContext,
  target: { key: string[]; entitySet: string; fields: LevelField[] },
  label: string,
): Promise<Map<number, string[]>> {
  const byName = new Map(target.fields.map((f) => [f.name, f]));
  const aliases = target.key.map((name) => {
    const field = byName.get(name);
    if (!field) throw usage(`export: "${label}" has no field "${name}" on ${context.env} (its key)`);
    return field.alias;
  });
  const records = await recordsOf(context.client, context.env, label, target.entitySet, aliases);
  const keys = new Map<number, string[]>();
  const owners = new Map<string, number[]>();
  for (const record of records) {
    const parts = aliases.map((alias) => keyPart(record.values[alias]));
    if (parts.some((part) => part === undefined)) continue;
    keys.set(record.id, parts as string[]);
    const id = JSON.stringify(parts);
    owners.set(id, [...(owners.get(id) ?? []), record.id]);
  }
  // Only records that share a key are left unnamed: a reference to one of them refuses below.
  for (const ids of owners.values()) if (ids.length > 1) for (const id of ids) keys.set(id, []);
  return keys;
}

/** The reference fields' targets, by field alias; a field pointing at several levels has none. */
async function targetsOf(
  context: TargetContext,
  fields: readonly LevelField[],
  records: readonly { id: number; values: Readonly<Record<string, unknown>> }[],
  application: string,
): Promise<Map<string, ReferenceTarget>> {
  const targets = new Map<string, ReferenceTarget>();
  for (const field of fields) {
    if (!isReference(field.type)) continue;
    if (field.referencedLevelIds.length !== 1) continue;
    const used = records.some(
      (r) => Array.isArray(r.values[field.alias]) && (r.values[field.alias] as unknown[]).length > 0,
    );
    const levelId = field.referencedLevelIds[0] as number;
    if (!used) {
      // Nothing to name: no key is needed, and the field is written by no record.
      targets.set(field.alias, { key: [], keys: new Map() });
      continue;
    }
    const target = await targetKey(context, field, levelId);
    const label = target.keysEntry ?? `${application} "${field.name}"`;
    const keys = await targetKeys(context, target, label);
    const shared = [...keys.entries()].filter(([, parts]) => parts.length === 0).map(([id]) => id);
    const referenced = new Set(
      records.flatMap((r) =>
        (Array.isArray(r.values[field.alias]) ? (r.values[field.alias] as unknown[]) : []).map(Number),
      ),
    );
    const clash = shared.filter((id) => referenced.has(id));
    if (clash.length > 0)
      throw new EgpError(
        "EGP_RECORD_KEY_AMBIGUOUS",
        `export: "${field.name}" references records that share their key [${target.key.join(", ")}] on ${context.env} (content ids ${clash.join(", ")}); a reference by key can't tell them apart: name another key with --ref-key`,
      );
    targets.set(field.alias, {
      ...(target.keysEntry === undefined ? {} : { keysEntry: target.keysEntry }),
      key: target.key,
      keys,
    });
  }
  return targets;
}

/** User and group names by id, read only when a users/groups field holds a value. */
async function principalsOf(
  client: PlatformClient,
  fields: readonly LevelField[],
  records: readonly { values: Readonly<Record<string, unknown>> }[],
) {
  const aliases = fields.filter((f) => isUsersGroups(f.type)).map((f) => f.alias);
  const used = records.some((r) =>
    aliases.some((alias) => r.values[alias] !== null && r.values[alias] !== undefined),
  );
  if (!used) return { users: new Map<number, string>(), groups: new Map<number, string>() };
  const [users, groups] = await Promise.all([
    client.users.listFields(["Id", "UserName"]),
    client.groups.list(),
  ]);
  return {
    users: new Map(
      users
        .filter((u) => u.Id !== undefined && u.UserName)
        .map((u) => [u.Id as number, u.UserName as string]),
    ),
    groups: new Map(groups.map((g) => [g.Id, g.Name])),
  };
}

function fileNameOf(application: string, level?: string): string {
  const slug = (text: string) =>
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "");
  return `records-${slug(application) || "application"}${level ? `-${slug(level)}` : ""}.yaml`;
}

function headerFor(environments: readonly string[], application: string): string[] {
  const runs = environments.map((env) => `\`egp export --env ${env} --kind Record\``).join(", ");
  return [
    `Written by ${runs} from the records of ${application}: values lists by value name,`,
    "users and groups by name, references by the target's key. Fields no Record document can express",
    "are left out; a following `egp plan` shows no changes for this document.",
  ];
}

/** The file as it will be written: merged with what an earlier export left at the same place. */
async function merged(
  out: string,
  file: ExportedFile,
  env: string,
  application: string,
): Promise<ExportedFile> {
  const path = join(out, file.file);
  const text = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
    throw new EgpError("EGP_FILE_SYSTEM", `--out: cannot read ${path} (${error.code ?? error.message})`, {
      cause: error,
    });
  });
  if (text === undefined) return file;
  const shown = join(relative(process.cwd(), out) || ".", file.file);
  const { documents, overwrites } = mergeExported({
    file: shown,
    text,
    kind: file.kind,
    key: file.key,
    environment: env,
    documents: file.documents,
  });
  const environments = [
    ...new Set(documents.flatMap((doc) => (Array.isArray(doc.environments) ? doc.environments : []))),
  ].map(String);
  return {
    ...file,
    documents,
    overwrites,
    text: manifestFile(headerFor(environments, application), documents),
  };
}

/** Reads one application level's records and makes their Record document's file, merged into `out`'s. */
export async function exportRecords(options: RecordExportOptions): Promise<RecordExportResult> {
  const { env } = options;
  const repository = selectManifests(await readRepository(options.dir), options.manifests);
  const { state: desired, warnings: issues } = environmentOf(repository, env);
  const client = await options.open(desired.environment);
  const { app, level, first } = await levelOf(client, env, options.application, options.level);
  const fields = await fieldsOf(client, level.Id);
  const where = first ? `"${app.Name}"` : `"${app.Name}" level "${level.Name}"`;
  const key = keyOf(fields, options.key, where);
  const read = fields.filter((field) => key.includes(field.name) || expressible(field.type));
  const records = await recordsOf(
    client,
    env,
    app.Name,
    level.Alias,
    read.map((f) => f.alias),
  );
  const context: TargetContext = {
    client,
    env,
    documents: recordDocuments(desired),
    refKeys: refKeysOf(options.refKeys ?? []),
    self: { levelId: level.Id, key },
  };
  const [principals, targets] = await Promise.all([
    principalsOf(client, fields, records),
    targetsOf(context, fields, records, app.Name),
  ]);
  const result = recordDocument({
    environment: env,
    application: app.Name,
    ...(first ? {} : { level: level.Name }),
    key,
    fields,
    records,
    ...principals,
    targets,
  });
  const exported: ExportedFile = {
    file: fileNameOf(app.Name, first ? undefined : level.Name),
    kind: "Record",
    noun: "records",
    count: records.length,
    text: manifestFile(headerFor([env], app.Name), [result.document]),
    key: "application",
    documents: [result.document],
    leftOut: [],
  };
  const out = resolve(options.out);
  const file = await merged(out, exported, env, app.Name);
  if (!options.force && (file.overwrites ?? []).length > 0)
    throw new EgpError(
      "EGP_EXPORT_OVERWRITE",
      `export: the files hold what the instance does not, which this export would overwrite (${(file.overwrites ?? []).map((what) => `${join(relative(process.cwd(), out) || ".", file.file)}: ${what}`).join("; ")}); plan to see the difference, or pass --force to overwrite`,
    );
  return {
    file,
    application: app.Name,
    records: records.length,
    leftOutFields: result.leftOutFields,
    warnings: result.warnings,
    issues,
  };
}

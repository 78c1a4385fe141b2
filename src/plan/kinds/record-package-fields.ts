import type { DesiredRecords } from "../../manifest/kinds/record.ts";
import type { LiveRecordField, ReadRecordLevel } from "../../state/kinds/record.ts";
import { FieldType } from "../../wire/index.ts";
import type { Change, Step } from "../model.ts";
import { type PackageDelivery, type PlanProblem, resourceDependency } from "./kind.ts";
import { REFERENCE_TYPES } from "./record-refs.ts";
import type { PackagedWrite } from "./record-steps.ts";
import { SERVED, TYPE_NAMES } from "./record-values.ts";

/*
 * Fields a package of the same plan adds to a level that a Record document manages. They are not
 * on the target when the plan is made, so their ids (and their values' ids) are not known: the
 * planner resolves the document's names against the package source's fields, as the target will
 * name them once installed, and the step carries their GUIDs, which are the same on every instance
 * (ids are not). The record's step waits for the package's install; apply turns the GUIDs into ids
 * by one read of the level's field definitions (src/apply/ops/record-packaged.ts).
 *
 * The fields are planned as live fields with placeholder ids (negative, never an instance's) so that
 * values resolve as for any field; `withPackaged` then moves their writes out of the step's `fields`
 * into `packaged`, with GUIDs in place of the placeholders.
 */

/** The types a package-added field is set with: their values need nothing else of the instance. */
const TYPES: ReadonlySet<number> = new Set([
  FieldType.Text,
  FieldType.Numeric,
  FieldType.Date,
  FieldType.ValuesList,
  FieldType.ExternalLinks,
  FieldType.IpAddress,
]);

interface Placeholder {
  guid: string;
  name: string;
  package: string;
  /** Values-list values by placeholder id. */
  values: ReadonlyMap<number, { guid: string; name: string }>;
}

/** The fields packages of the plan add to one level, as live fields with placeholder ids. */
export interface PackagedFields {
  fields: LiveRecordField[];
  byId: ReadonlyMap<number, Placeholder>;
  /** The level itself, when the package adds it: its id too is known only once installed. */
  level?: PackagedLevel;
}

/** A level a package of the plan adds, by GUID, and the GUID of its application. */
export interface PackagedLevel {
  guid: string;
  name: string;
  application: string;
  package: string;
}

/** Where a level the package adds is planned: no records yet, its id a placeholder. */
const NEW_LEVEL_ID = -1;

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * The fields of the level named `levelName` in `application` that a package of the plan installs
 * and the target's level lacks (by name), or undefined when none.
 */
export function packagedFieldsOf(
  deliveries: readonly PackageDelivery[] | undefined,
  application: string,
  levelName: string,
  live: ReadonlyMap<string, unknown>,
): PackagedFields | undefined {
  const fields: LiveRecordField[] = [];
  const byId = new Map<number, Placeholder>();
  let nextValue = -1;
  for (const { package: pkg, object } of deliveries ?? []) {
    if (object.type !== "Application" || !same(object.name, application) || !object.members) continue;
    const level = object.members.levels.find((candidate) => same(candidate.name, levelName));
    if (!level) continue;
    for (const field of object.members.fields) {
      if (field.level !== level.guid || field.active === false || live.has(field.name)) continue;
      if (fields.some((known) => known.name === field.name)) continue;
      const id = -(fields.length + 1);
      const values = new Map<number, { guid: string; name: string }>();
      for (const value of field.values ?? []) values.set(nextValue--, value);
      fields.push({
        id,
        name: field.name,
        alias: field.alias,
        type: field.type ?? -1,
        values: [...values].map(([valueId, value]) => ({ id: valueId, name: value.name })),
      });
      byId.set(id, { guid: field.guid, name: field.name, package: pkg, values });
    }
  }
  return fields.length > 0 ? { fields, byId } : undefined;
}

/**
 * The level that the document names and a package of the plan adds (with its application, or to an
 * application the target has), planned as a level without records whose fields are all the
 * package's; or why it can't be; or undefined when no package of the plan adds it.
 */
export function packagedLevelOf(
  deliveries: readonly PackageDelivery[] | undefined,
  document: Pick<DesiredRecords, "application" | "level">,
): { level: PlannedLevel; packaged: PackagedFields } | { problem: string } | undefined {
  const delivery = (deliveries ?? []).find(
    ({ object }) =>
      object.type === "Application" && same(object.name, document.application) && object.members,
  );
  if (!delivery?.object.members) return undefined;
  const { levels } = delivery.object.members;
  const level = document.level
    ? levels.find((candidate) => same(candidate.name, document.level as string))
    : levels.length === 1
      ? levels[0]
      : undefined;
  if (!level && document.level) return undefined;
  if (!level)
    return {
      problem: `package "${delivery.package}" of this plan adds it with ${levels.length} levels (${levels.map((candidate) => `"${candidate.name}"`).join(", ")}); name the level with \`level:\``,
    };
  const packaged = packagedFieldsOf([delivery], document.application, level.name, new Map());
  if (!packaged) return { problem: `package "${delivery.package}" of this plan adds it without fields` };
  return {
    level: {
      application: document.application,
      ...(document.level ? { level: document.level } : {}),
      levelId: NEW_LEVEL_ID,
      levelName: level.name,
      entitySet: level.alias,
      fields: packaged.fields,
      records: [],
    },
    packaged: {
      ...packaged,
      level: {
        guid: level.guid,
        name: level.name,
        application: delivery.object.guid,
        package: delivery.package,
      },
    },
  };
}

/** A level as the record planner plans against it: as read, or as a package of the plan delivers it. */
export type PlannedLevel = Omit<ReadRecordLevel, "scope">;

/** The names of packages that add fields to the level, for a refusal's words. */
export function packageNames(packaged: PackagedFields): string {
  const names = [...new Set([...packaged.byId.values()].map((field) => field.package))];
  return names.map((name) => `"${name}"`).join(", ");
}

/**
 * What a document asks of package-added fields that can't be planned: a key field (the live records
 * have no value there, so every key would plan a create, and a prune would delete them all), or a
 * field of a type whose values need more of the instance than the package's definition.
 */
export function packagedProblems(
  document: DesiredRecords,
  packaged: PackagedFields,
  environment: string,
): PlanProblem[] {
  const byName = new Map(packaged.fields.map((field) => [field.name, field]));
  const problems: PlanProblem[] = [];
  const seen = new Set<string>();
  const origin = (name: string) => packaged.byId.get(byName.get(name)?.id ?? 0)?.package ?? "";
  for (const name of document.key)
    if (byName.has(name) && !packaged.level)
      problems.push({
        ...document.source,
        path: "key",
        message: `the key field "${name}" is not on ${environment} yet: package "${origin(name)}" of this plan adds it, and a key must be on the target's records; apply the package first`,
      });
  for (const entry of document.records)
    for (const name of Object.keys(entry.values)) {
      const field = byName.get(name);
      if (!field || seen.has(name) || document.key.includes(name)) continue;
      seen.add(name);
      // Types Record documents do not write at all are refused with the target's fields (fieldProblems).
      if (TYPES.has(field.type) || !(SERVED.has(field.type) || REFERENCE_TYPES.has(field.type))) continue;
      const type = TYPE_NAMES[field.type] ?? "a";
      problems.push({
        ...(entry.fields[name] ?? entry.source),
        message: `"${name}" is a ${type} field that package "${origin(name)}" of this plan adds; a Record document sets a field the install adds only when it is text, numeric, date, values list, external links or IP address: apply the package first`,
      });
    }
  return problems;
}

interface FieldWrite {
  fieldId: number;
  type: number;
  value: unknown;
}

interface TargetInput {
  levelId?: number;
  fields: FieldWrite[];
  prior?: FieldWrite[];
}

function packagedWrite(write: FieldWrite, field: Placeholder): PackagedWrite {
  const { value } = write;
  if (value !== null && typeof value === "object" && "ValuesListIds" in value) {
    const { ValuesListIds: ids, OtherText } = value as { ValuesListIds: number[]; OtherText: string | null };
    const guids = ids.map((id) => field.values.get(id) as { guid: string; name: string });
    return {
      guid: field.guid,
      name: field.name,
      type: write.type,
      value: { ValuesListGuids: guids, OtherText },
    };
  }
  return { guid: field.guid, name: field.name, type: write.type, value: value as PackagedWrite["value"] };
}

/**
 * The planned record with the package-added fields' writes in `packaged` (by GUID), its step
 * waiting for those packages, and a note of which package adds them; as planned when it writes none.
 */
export function withPackaged(
  planned: { change: Change; step: Step },
  packaged: PackagedFields,
): { change: Change; step: Step } {
  const input = planned.step.input as unknown as TargetInput;
  const moved = input.fields.filter((write) => packaged.byId.has(write.fieldId));
  if (moved.length === 0 && !packaged.level) return planned;
  const writes = moved.map((write) => packagedWrite(write, packaged.byId.get(write.fieldId) as Placeholder));
  const byPackage = new Map<string, string[]>();
  for (const write of moved) {
    const field = packaged.byId.get(write.fieldId) as Placeholder;
    byPackage.set(field.package, [...(byPackage.get(field.package) ?? []), field.name]);
  }
  const own = (write: FieldWrite) => !packaged.byId.has(write.fieldId);
  const { levelId, ...rest } = input;
  const level = packaged.level
    ? {
        level: {
          guid: packaged.level.guid,
          name: packaged.level.name,
          application: packaged.level.application,
        },
      }
    : { levelId };
  if (packaged.level) byPackage.set(packaged.level.package, byPackage.get(packaged.level.package) ?? []);
  const step: Step = {
    ...planned.step,
    input: {
      ...rest,
      ...level,
      fields: input.fields.filter(own),
      ...(input.prior ? { prior: input.prior.filter(own) } : {}),
      packaged: writes,
    },
    dependsOn: [
      ...planned.step.dependsOn,
      ...[...byPackage.keys()].map((name) => resourceDependency("Package", name)),
    ],
  };
  const where = packaged.level ? `level "${packaged.level.name}" and its fields ` : "";
  const notes = [...byPackage].map(
    ([name, fields]) =>
      `${where}${fields.map((field) => JSON.stringify(field)).join(", ")}: added by package "${name}" of this plan`,
  );
  return { change: { ...planned.change, notes: [...planned.change.notes, ...notes] }, step };
}

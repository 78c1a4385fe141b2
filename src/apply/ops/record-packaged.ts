import type { z } from "zod";
import type { recordSteps } from "../../plan/kinds/record-steps.ts";
import type { FieldDefinition } from "../../wire/index.ts";
import { ApplyError } from "../errors.ts";
import type { OpContext } from "./types.ts";

/*
 * A record's fields that a package of the same plan adds: the plan names them (and their values-list
 * values) by GUID, the same on every instance, because their ids exist only once the package is
 * installed. The step runs after the install; here the GUIDs become ids by one read of the level's
 * field definitions, shared by every record step of the run that writes to that level. A GUID the
 * level lacks after the install fails the step before any write: the plan showed a field that the
 * install did not make.
 */

type Input = z.output<(typeof recordSteps.ops)["record.create"]>;
type PackagedWrite = NonNullable<Input["packaged"]>[number];

const label = (key: readonly string[]) => key.map((part) => JSON.stringify(part)).join(", ");

/** The level's field definitions, read once per run for all the record steps that need them. */
function definitionsOf(context: OpContext, levelId: number): Promise<FieldDefinition[]> {
  return context.shared(
    `record.packaged-fields:${levelId}`,
    () => context.client.metadata.fieldDefinitions(levelId) as Promise<FieldDefinition[]>,
  );
}

function stale(input: Input, write: PackagedWrite, finding: string): ApplyError {
  return new ApplyError(
    "EGP_PLAN_STALE",
    `the record ${label(input.key)} of "${input.application}": the field "${write.name}" (GUID ${write.guid}), which the plan's package adds, ${finding} after the install; nothing was written. Plan again.`,
  );
}

function idOf(input: Input, write: PackagedWrite, byGuid: ReadonlyMap<string, FieldDefinition>) {
  const field = byGuid.get(write.guid.toLowerCase());
  if (!field) throw stale(input, write, "is not on the level");
  if (field.Type !== write.type) throw stale(input, write, `is of another type (${field.Type})`);
  const { value } = write;
  if (value === null || typeof value !== "object" || !("ValuesListGuids" in value))
    return { fieldId: field.Id, type: write.type, value };
  const values = new Map((field.ValuesListValues ?? []).map((item) => [item.Guid.toLowerCase(), item.Id]));
  const ids = value.ValuesListGuids.map(({ guid, name }) => {
    const id = values.get(guid.toLowerCase());
    if (id === undefined) throw stale(input, write, `has no value "${name}" (GUID ${guid})`);
    return id;
  });
  return { fieldId: field.Id, type: write.type, value: { ValuesListIds: ids, OtherText: value.OtherText } };
}

/** The id of the level the plan's package adds: its application's levels, read once per run, by GUID. */
async function levelIdOf(context: OpContext, input: Input): Promise<number> {
  if (input.levelId !== undefined) return input.levelId;
  const level = input.level;
  if (!level)
    throw new ApplyError(
      "EGP_STEP_INPUT_MISSING",
      `${context.step.id}: has neither a level id nor a level GUID`,
    );
  const applications = await context.shared("record.packaged-applications", () =>
    context.client.metadata.applications(),
  );
  const application = applications.find((app) => app.Guid.toLowerCase() === level.application.toLowerCase());
  const levels = application
    ? await context.shared(`record.packaged-levels:${application.Id}`, () =>
        context.client.metadata.levelsByModule(application.Id),
      )
    : [];
  const found = levels.find((candidate) => candidate.Guid.toLowerCase() === level.guid.toLowerCase());
  if (found) return found.Id;
  throw new ApplyError(
    "EGP_PLAN_STALE",
    `the record ${label(input.key)} of "${input.application}": the level "${level.name}" (GUID ${level.guid}), which the plan's package adds, is not on the instance after the install; nothing was written. Plan again.`,
  );
}

/** The step's input by ids: the level and the package-added fields as the install made them. */
export async function withPackagedIds<T extends Input>(
  context: OpContext,
  input: T,
): Promise<T & { levelId: number }> {
  const { packaged, level: _level, ...rest } = input;
  const levelId = await levelIdOf(context, input);
  if (!packaged || packaged.length === 0) return { ...rest, levelId } as T & { levelId: number };
  const definitions = await definitionsOf(context, levelId);
  const byGuid = new Map(definitions.map((field) => [field.Guid.toLowerCase(), field]));
  const fields = packaged.map((write) => idOf(input, write, byGuid));
  return { ...rest, levelId, fields: [...input.fields, ...fields] } as T & { levelId: number };
}

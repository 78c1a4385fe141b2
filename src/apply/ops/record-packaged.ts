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

/** The step's input with the package-added fields written by id, as the content calls take them. */
export async function withPackagedIds<T extends Input>(context: OpContext, input: T): Promise<T> {
  const { packaged, ...rest } = input;
  if (!packaged || packaged.length === 0) return input;
  const definitions = await definitionsOf(context, input.levelId);
  const byGuid = new Map(definitions.map((field) => [field.Guid.toLowerCase(), field]));
  const fields = packaged.map((write) => idOf(input, write, byGuid));
  return { ...rest, fields: [...input.fields, ...fields] } as T;
}

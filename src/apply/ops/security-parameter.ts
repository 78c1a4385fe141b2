import { OutcomeUnknownError } from "../../client/errors.ts";
import type { StepInputOf } from "../../plan/index.ts";
import type { SecurityParameter } from "../../wire/index.ts";
import { ApplyError } from "../errors.ts";
import { assertDeleteAllowed } from "./delete-guard.ts";
import { parametersOf } from "./shared-reads.ts";
import { inputOf, type OpContext, type OpHandler } from "./types.ts";

type ParameterFields = StepInputOf<"securityParameter.create">["fields"];

/** A time of day as the date-time the platform stores the time frame as. */
function dateTime(value: string | null | undefined): string | null | undefined {
  return typeof value === "string" && /^\d{2}:\d{2}(:\d{2})?$/.test(value)
    ? `2000-01-01T${value.length === 5 ? `${value}:00` : value}`
    : value;
}

/** The platform stores the time frame as date-times; the manifest gives times of day. */
function forTheWire(fields: ParameterFields): ParameterFields {
  const out = { ...fields };
  if (out.PermittedFromTime !== undefined) out.PermittedFromTime = dateTime(out.PermittedFromTime);
  if (out.PermittedToTime !== undefined) out.PermittedToTime = dateTime(out.PermittedToTime);
  return out;
}

async function findByName(context: OpContext, name: string): Promise<SecurityParameter | undefined> {
  const all = await parametersOf(context, true);
  return all.find((p) => p.Name.toLowerCase() === name.toLowerCase());
}

const create: OpHandler = async (context) => {
  const { name, fields } = inputOf(context, "securityParameter.create");
  // A create whose answer was lost may have happened: look before making a second one.
  if (context.resumed) {
    const existing = await findByName(context, name);
    if (existing) return { id: existing.Id };
  }
  try {
    const id = await context.client.securityParameters.create({ ...forTheWire(fields), Name: name });
    await parametersOf(context, true);
    return { id };
  } catch (error) {
    if (!(error instanceof OutcomeUnknownError)) throw error;
    const existing = await findByName(context, name);
    if (existing) return { id: existing.Id };
    throw error;
  }
};

const update: OpHandler = async (context) => {
  const { name, fields } = inputOf(context, "securityParameter.update");
  const live = await findByName(context, name);
  if (!live)
    throw new ApplyError(
      "EGP_TARGET_GONE",
      `security parameter "${name}" no longer exists on ${context.step.environment}`,
    );
  // Update sends the whole live parameter with the managed fields changed, and its Id, Alias, GUID,
  // which the interface requires: a parameter read without them can't be updated.
  const { Alias, GUID } = live;
  if (Alias === null || GUID === null)
    throw new ApplyError(
      "EGP_STEP_FAILED",
      `security parameter "${name}" on ${context.step.environment} reads without its ${Alias === null ? "Alias" : "GUID"}, which an update must send`,
    );
  await context.client.securityParameters.update({ ...live, ...forTheWire(fields), Alias, GUID });
  await parametersOf(context, true);
  return { id: live.Id };
};

const remove: OpHandler = async (context) => {
  const { name } = inputOf(context, "securityParameter.delete");
  assertDeleteAllowed(context, {
    kind: "SecurityParameter",
    key: name,
    policy: "securityParameters",
    what: `security parameter ${name}`,
  });
  const live = await findByName(context, name);
  if (!live) return { id: null, note: "already gone" };
  await context.client.securityParameters.remove(live.Id);
  await parametersOf(context, true);
  return { id: live.Id };
};

export const securityParameterOps = {
  "securityParameter.create": create,
  "securityParameter.update": update,
  "securityParameter.delete": remove,
} as const;

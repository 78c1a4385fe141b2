import { OutcomeUnknownError } from "../../client/errors.ts";
import type { SecurityParameter } from "../../wire/index.ts";
import { ApplyErrorCode } from "../error-codes.ts";
import { ApplyError } from "../errors.ts";
import { assertDeleteAllowed } from "./delete-guard.ts";
import type { OpContext, OpHandler } from "./types.ts";

interface ParameterInput {
  name: string;
  fields?: Record<string, unknown>;
}

/** The platform stores the time frame as date-times; the manifest gives times of day. */
function forTheWire(fields: Record<string, unknown>): Record<string, unknown> {
  const out = { ...fields };
  for (const key of ["PermittedFromTime", "PermittedToTime"]) {
    const value = out[key];
    if (typeof value === "string" && /^\d{2}:\d{2}(:\d{2})?$/.test(value))
      out[key] = `2000-01-01T${value.length === 5 ? `${value}:00` : value}`;
  }
  return out;
}

async function findByName(context: OpContext, name: string): Promise<SecurityParameter | undefined> {
  const all = await context.parameters(true);
  return all.find((p) => p.Name.toLowerCase() === name.toLowerCase());
}

const create: OpHandler = async (context) => {
  const { name, fields = {} } = context.step.input as unknown as ParameterInput;
  // A create whose answer was lost may have happened: look before making a second one.
  if (context.resumed) {
    const existing = await findByName(context, name);
    if (existing) return { id: existing.Id };
  }
  try {
    const id = await context.client.securityParameters.create({ ...forTheWire(fields), Name: name } as never);
    await context.parameters(true);
    return { id };
  } catch (error) {
    if (!(error instanceof OutcomeUnknownError)) throw error;
    const existing = await findByName(context, name);
    if (existing) return { id: existing.Id };
    throw error;
  }
};

const update: OpHandler = async (context) => {
  const { name, fields = {} } = context.step.input as unknown as ParameterInput;
  const live = await findByName(context, name);
  if (!live)
    throw new ApplyError(
      ApplyErrorCode.TargetGone,
      `security parameter "${name}" no longer exists on ${context.step.environment}`,
    );
  // Update sends the whole live parameter with the managed fields changed, and its Id, Alias, GUID.
  await context.client.securityParameters.update({ ...live, ...forTheWire(fields) } as never);
  await context.parameters(true);
  return { id: live.Id };
};

const remove: OpHandler = async (context) => {
  const { name } = context.step.input as unknown as ParameterInput;
  assertDeleteAllowed(context, `security parameter ${name}`, "securityParameters");
  const live = await findByName(context, name);
  if (!live) return { id: null, note: "already gone" };
  await context.client.securityParameters.remove(live.Id);
  await context.parameters(true);
  return { id: live.Id };
};

export const securityParameterOps = {
  "securityParameter.create": create,
  "securityParameter.update": update,
  "securityParameter.delete": remove,
} as const;

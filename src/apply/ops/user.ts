import { NotFoundError, OutcomeUnknownError } from "../../client/errors.ts";
import type { UserRead } from "../../client/resources/users.ts";
import type { StepInputOf } from "../../plan/index.ts";
import { ApplyError } from "../errors.ts";
import { generatePassword } from "../password.ts";
import { assertDeleteAllowed } from "./delete-guard.ts";
import { parametersOf } from "./shared-reads.ts";
import { inputOf, type OpContext, type OpHandler } from "./types.ts";

type CreateInput = StepInputOf<"user.create">;
/** What an update sends: the managed fields, contacts, roles and groups. */
type ManagedInput = Omit<StepInputOf<"user.update">, "id">;
/** What finds a live user: its name, and the id it had when planned. */
type LiveInput = StepInputOf<"user.activate">;
type UpdateRequest = Parameters<OpContext["client"]["users"]["update"]>[0];
type CreateRequest = Parameters<OpContext["client"]["users"]["create"]>[0];

async function findUser(context: OpContext, userName: string): Promise<UserRead | undefined> {
  const found = await context.client.users.list({ filter: { field: "UserName", op: "eq", value: userName } });
  return found.find((user) => user.UserName.toLowerCase() === userName.toLowerCase());
}

async function securityIdOf(context: OpContext, name: string | undefined): Promise<number | undefined> {
  if (!name) return undefined;
  const wanted = name.toLowerCase();
  const match = (await parametersOf(context)).find((p) => p.Name.toLowerCase() === wanted);
  const fresh = match ?? (await parametersOf(context, true)).find((p) => p.Name.toLowerCase() === wanted);
  if (!fresh)
    throw new ApplyError(
      "EGP_TARGET_GONE",
      `security parameter "${name}" does not exist on ${context.step.environment}`,
    );
  return fresh.Id;
}

/**
 * Update sends the live user with the managed fields changed: the interface resets every field an
 * update omits (seed, Update rules 1). Contacts, roles and groups go only when managed.
 */
async function sendUpdate(context: OpContext, userId: number, input: ManagedInput): Promise<void> {
  const live = await context.client.users.get(userId);
  const securityId = await securityIdOf(context, input.securityParameter);
  const { UpdateInformation: _info, LastLoginDate: _login, ...writable } = live;
  const request: UpdateRequest = {
    User: {
      ...writable,
      ...input.fields,
      ...(securityId === undefined ? {} : { SecurityId: securityId }),
      Id: userId,
    },
    Contacts: input.contacts ?? null,
    Roles: input.roles ?? null,
    Groups: input.groups ?? null,
  };
  await context.client.users.update(request);
}

function passwordFor(
  context: OpContext,
  input: CreateInput,
  securityId: number | undefined,
): Promise<string> | string {
  const desired = context.desired.users.find((u) => u.key === input.userName.toLowerCase());
  if (input.passwordFrom === "manifest" && desired?.initialPassword) return desired.initialPassword.reveal();
  return parametersOf(context).then((all) => {
    const parameter = all.find((p) => p.Id === securityId) ?? all.find((p) => p.Default);
    return generatePassword(parameter);
  });
}

const create: OpHandler = async (context) => {
  const input = inputOf(context, "user.create");
  let id: number | undefined;
  if (context.resumed) id = (await findUser(context, input.userName))?.Id;
  if (id === undefined) {
    const securityId = await securityIdOf(context, input.securityParameter);
    const password = await passwordFor(context, input, securityId);
    const generated = input.passwordFrom !== "manifest";
    try {
      const request: CreateRequest = {
        User: {
          ...input.fields,
          UserName: input.userName,
          ...(securityId === undefined ? {} : { SecurityId: securityId }),
          ...(generated ? { ForcePasswordChange: true } : {}),
        },
        Password: password,
        ...(input.roles ? { Roles: input.roles } : {}),
      };
      id = await context.client.users.create(request);
    } catch (error) {
      // No blind retry of a create: look first (DESIGN §3).
      if (!(error instanceof OutcomeUnknownError)) throw error;
      id = (await findUser(context, input.userName))?.Id;
      if (id === undefined) throw error;
    }
  }
  // Contacts and groups are set by an update, as the interface's create does not take them.
  if (input.contacts || input.groups) await sendUpdate(context, id, input);
  return { id };
};

async function liveId(context: OpContext, input: LiveInput): Promise<number | undefined> {
  if (input.id !== undefined) {
    try {
      const user = await context.client.users.get(input.id);
      if (user.UserName.toLowerCase() === input.userName.toLowerCase()) return user.Id;
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
  return (await findUser(context, input.userName))?.Id;
}

const gone = (context: OpContext, input: LiveInput) =>
  new ApplyError("EGP_TARGET_GONE", `user ${input.userName} no longer exists on ${context.step.environment}`);

const update: OpHandler = async (context) => {
  const input = inputOf(context, "user.update");
  const id = await liveId(context, input);
  if (id === undefined) throw gone(context, input);
  await sendUpdate(context, id, input);
  return { id };
};

const activate: OpHandler = async (context) => {
  const input = inputOf(context, "user.activate");
  const id = await liveId(context, input);
  if (id === undefined) throw gone(context, input);
  await context.client.users.activate(id);
  return { id };
};

const deactivate: OpHandler = async (context) => {
  const input = inputOf(context, "user.deactivate");
  const id = await liveId(context, input);
  if (id === undefined) throw gone(context, input);
  await context.client.users.deactivate(id);
  return { id };
};

const remove: OpHandler = async (context) => {
  const input = inputOf(context, "user.delete");
  assertDeleteAllowed(context, {
    kind: "User",
    key: input.userName,
    policy: "users",
    what: `user ${input.userName}`,
  });
  const id = await liveId(context, input);
  if (id === undefined) return { id: null, note: "already gone" };
  await context.client.users.remove(id);
  return { id };
};

export const userOps = {
  "user.create": create,
  "user.update": update,
  "user.activate": activate,
  "user.deactivate": deactivate,
  "user.delete": remove,
} as const;

import { randomUUID } from "node:crypto";
import {
  type Envelope,
  SecurityParameter,
  SecurityParameterCreate,
  SecurityParameterUpdate,
  type ValidationMessage,
} from "../../wire/index.ts";
import { bind } from "../bind.ts";
import { ok, okId } from "../envelope.ts";
import { badRequest, HttpFailure, message, notFound } from "../failure.ts";
import { fieldKinds } from "../odata-fields.ts";
import { pathId } from "../path-id.ts";
import type { RouteContext, Routes } from "../router.ts";
import { parameterProblems } from "../security-parameters/rules.ts";
import { parameter as withDefaults } from "../seeds/fixed.ts";
import { requireAdministrator } from "../sessions.ts";
import type { Store } from "../store.ts";

/*
 * The Security parameter segment: create, get all, get by id, update, delete. Writes need the
 * System Administrator role. Choices where the seed is silent: docs/emulator.md, "Security parameters".
 */

const PATH = "/core/system/securityparameter";
const PARAMETER_FIELDS = fieldKinds(SecurityParameter, ["PermittedFromTime", "PermittedToTime"]);

function parameterOr404(store: Store, id: number): SecurityParameter {
  const found = store.securityParameter(id);
  if (!found) throw notFound("SecurityParameter", id);
  return found;
}

function nameTaken(store: Store, name: string, selfId?: number): ValidationMessage[] {
  const lower = name.toLowerCase();
  const holder = store.allSecurityParameters().find((p) => p.Name.toLowerCase() === lower && p.Id !== selfId);
  if (!holder) return [];
  return [
    message("DuplicateName", `Name: a security parameter named "${holder.Name}" already exists.`, {
      erroredValue: name,
    }),
  ];
}

/** An alias derived from the name, made unique with a numeric suffix. */
function aliasFor(store: Store, name: string): string {
  const base = name.replace(/[^A-Za-z0-9]+/g, "_").replace(/^_+|_+$/g, "") || "Security_Parameter";
  const taken = new Set(store.allSecurityParameters().map((p) => (p.Alias ?? "").toLowerCase()));
  let alias = base;
  for (let n = 2; taken.has(alias.toLowerCase()); n++) alias = `${base}_${n}`;
  return alias;
}

/** Throws a 400 listing the given problems and the parameter's range problems, if any. */
function check(candidate: SecurityParameter, problems: ValidationMessage[]): void {
  const all = [...problems, ...parameterProblems(candidate)];
  if (all.length > 0) throw new HttpFailure(400, all);
}

/** Stores a checked parameter; only one parameter may be the default. */
function keep(store: Store, candidate: SecurityParameter): void {
  if (candidate.Default) {
    for (const other of store.allSecurityParameters()) {
      if (other.Id !== candidate.Id) other.Default = false;
    }
  }
  store.data.securityParameters[String(candidate.Id)] = candidate;
  store.changed("securityParameters");
}

/** Keeps the fields the body sent; an omitted field keeps its live value. */
function sentFields<T extends object>(body: T): Partial<T> {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function create({ store, session, body }: RouteContext): Envelope {
  requireAdministrator(store, session);
  // Id, Alias and GUID are not part of the create body; if sent they are ignored (not bound).
  const request = bind(SecurityParameterCreate, body, "security parameter");
  const draft = withDefaults(0, { ...sentFields(request), Name: request.Name });
  check(draft, nameTaken(store, request.Name));
  const id = store.nextId("securityParameter");
  keep(store, { ...draft, Id: id, Alias: aliasFor(store, request.Name), GUID: randomUUID() });
  return okId(id);
}

function update({ store, session, body }: RouteContext): Envelope {
  requireAdministrator(store, session);
  const { Id, Alias, GUID, ...fields } = bind(SecurityParameterUpdate, body, "security parameter");
  const live = parameterOr404(store, Id);
  const problems: ValidationMessage[] = [];
  if (Alias !== live.Alias) {
    problems.push(
      message("AliasMismatch", `Alias: "${Alias}" is not the alias of security parameter ${Id}.`),
    );
  }
  if (GUID.toLowerCase() !== (live.GUID ?? "").toLowerCase()) {
    problems.push(message("GuidMismatch", `GUID: "${GUID}" is not the GUID of security parameter ${Id}.`));
  }
  const candidate: SecurityParameter = { ...live, ...sentFields(fields) };
  problems.push(...nameTaken(store, candidate.Name, Id));
  if (live.Default && !candidate.Default) {
    problems.push(
      message(
        "DefaultRequired",
        "Default: one parameter must be the default; make another one the default instead.",
      ),
    );
  }
  check(candidate, problems);
  keep(store, candidate);
  return okId(Id);
}

function remove({ store, session, params }: RouteContext): Envelope {
  requireAdministrator(store, session);
  const id = pathId(params, "securityParameterId");
  const found = parameterOr404(store, id);
  if (found.Default) {
    throw badRequest(
      "CannotDeleteDefault",
      `Security parameter ${id} is the default and cannot be deleted.`,
      id,
    );
  }
  const users = store.allUsers().filter((record) => record.user.SecurityId === id).length;
  if (users > 0) {
    throw badRequest(
      "SecurityParameterInUse",
      `Security parameter ${id} is assigned to ${users} user${users === 1 ? "" : "s"} and cannot be deleted.`,
      id,
    );
  }
  delete store.data.securityParameters[String(id)];
  store.changed("securityParameters");
  // As the user delete does: ValidationMessages null on success.
  return { Links: [], RequestedObject: { Id: id }, IsSuccessful: true, ValidationMessages: null };
}

export function registerSecurityParameters(routes: Routes): void {
  routes.post(PATH, create);
  routes.put(PATH, update);
  routes.list(PATH, ({ store }) => store.allSecurityParameters(), PARAMETER_FIELDS);
  routes.read(`${PATH}/:securityParameterId`, ({ store, params }) =>
    ok(parameterOr404(store, pathId(params, "securityParameterId"))),
  );
  routes.delete(`${PATH}/:securityParameterId`, remove);
}

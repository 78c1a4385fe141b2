import type { z } from "zod";
import {
  IdObject,
  SecurityParameter,
  type SecurityParameterCreate,
  type SecurityParameterUpdate,
} from "../../wire/index.ts";
import { idOf } from "../args.ts";
import type { Caller } from "../caller.ts";
import { many, one } from "../envelope.ts";
import { route } from "../route.ts";

/*
 * The 5 security parameter operations. Create omits Id, Alias and GUID; update must send the live
 * ones (DESIGN §2). Reads keep unknown fields, so that an update can send them back unchanged.
 */

const ParameterRead = SecurityParameter.loose();
export type SecurityParameterRead = z.infer<typeof ParameterRead>;
const idOnly = one(IdObject);

export function securityParametersResource(caller: Caller) {
  const base = route`/core/system/securityparameter`;
  const byId = (parameterId: number) =>
    route`/core/system/securityparameter/${idOf("securityParameterId", parameterId)}`;
  return {
    list: () => caller.call({ method: "POST", override: true, route: base, decode: many(ParameterRead) }),

    get: (parameterId: number) =>
      caller.call({ method: "POST", override: true, route: byId(parameterId), decode: one(ParameterRead) }),

    /** Returns the new parameter's id. Not retried: a lost answer raises OutcomeUnknownError. */
    create: async (parameter: SecurityParameterCreate) =>
      (await caller.call({ method: "POST", route: base, json: parameter, decode: idOnly })).Id,

    update: async (parameter: SecurityParameterUpdate) =>
      (await caller.call({ method: "PUT", route: base, json: parameter, decode: idOnly })).Id,

    remove: async (parameterId: number) =>
      (await caller.call({ method: "DELETE", route: byId(parameterId), decode: idOnly })).Id,
  };
}

export type SecurityParametersResource = ReturnType<typeof securityParametersResource>;

import type { z } from "zod";
import {
  IdObject,
  SecurityParameter,
  type SecurityParameterCreate,
  type SecurityParameterUpdate,
} from "../../wire/index.ts";
import { idOf } from "../args.ts";
import type { Call, Caller } from "../caller.ts";
import { many, one } from "../envelope.ts";
import { type ListQuery, odataParams } from "../odata.ts";
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
  const write = async (call: Call<IdObject>) => (await caller.call(call)).Id;

  return {
    /** Every parameter; OData options but `$select` allowed. */
    async list(query?: ListQuery) {
      return caller.call({
        method: "POST",
        override: true,
        route: base,
        query: odataParams(query),
        decode: many(ParameterRead),
      });
    },

    async get(parameterId: number) {
      return caller.call({
        method: "POST",
        override: true,
        route: byId(parameterId),
        decode: one(ParameterRead),
      });
    },

    /** Returns the new parameter's id. Not retried: a lost answer raises OutcomeUnknownError. */
    async create(parameter: SecurityParameterCreate): Promise<number> {
      return write({ method: "POST", route: base, json: parameter, decode: idOnly });
    },

    /** Send the live Id, Alias and GUID. Returns the parameter's id. */
    async update(parameter: SecurityParameterUpdate): Promise<number> {
      return write({ method: "PUT", route: base, json: parameter, decode: idOnly });
    },

    async remove(parameterId: number): Promise<number> {
      return write({ method: "DELETE", route: byId(parameterId), decode: idOnly });
    },
  };
}

export type SecurityParametersResource = ReturnType<typeof securityParametersResource>;
